// One self-contained HTML page for `blksim report`: headings, text, tables, <pre> blocks and
// PNG figures inlined as data: URIs, with the style sheet inline. The page loads nothing
// from anywhere: it can be mailed, attached to a bug or opened offline.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blksim::cli {

std::string html_escape(std::string_view s);
// RFC 4648 base64 (with '=' padding), for data: URIs.
std::string base64(std::string_view bytes);

class HtmlPage {
public:
    explicit HtmlPage(std::string title) : title_(std::move(title)) {}

    void heading(std::string_view text, int level = 2);
    void paragraph(std::string_view text);
    // `text` exactly as it is (fio's report, a scenario file), escaped, in a scrolling box.
    void pre(std::string_view text);
    void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
    // A PNG (its bytes) with its caption; width/height are its pixel size.
    void figure(std::string_view png, std::string_view caption, int width, int height);

    // Markup made by the program itself (a script and its canvas), added as it is.
    void raw(std::string_view html);

    std::string str() const;

private:
    std::string title_;
    std::string body_;
};

}  // namespace blksim::cli
