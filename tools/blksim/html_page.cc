#include "tools/blksim/html_page.h"

#include <array>

#include <fmt/format.h>

namespace blksim::cli {

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string base64(std::string_view bytes) {
    static constexpr std::string_view ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                           static_cast<uint8_t>(bytes[i + 2]);
        for (const int shift : {18, 12, 6, 0})
            out += ALPHABET[(v >> shift) & 63];
    }
    if (const std::size_t rest = bytes.size() - i; rest > 0) {
        uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
        if (rest == 2)
            v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
        out += ALPHABET[(v >> 18) & 63];
        out += ALPHABET[(v >> 12) & 63];
        out += rest == 2 ? ALPHABET[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

void HtmlPage::heading(std::string_view text, int level) {
    body_ += fmt::format("<h{0}>{1}</h{0}>\n", level, html_escape(text));
}

void HtmlPage::paragraph(std::string_view text) { body_ += fmt::format("<p>{}</p>\n", html_escape(text)); }

void HtmlPage::pre(std::string_view text) { body_ += fmt::format("<pre>{}</pre>\n", html_escape(text)); }

void HtmlPage::table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    body_ += "<table>\n<tr>";
    for (const std::string& h : header)
        body_ += fmt::format("<th>{}</th>", html_escape(h));
    body_ += "</tr>\n";
    for (const auto& r : rows) {
        body_ += "<tr>";
        for (const std::string& c : r)
            body_ += fmt::format("<td>{}</td>", html_escape(c));
        body_ += "</tr>\n";
    }
    body_ += "</table>\n";
}

void HtmlPage::figure(std::string_view png, std::string_view caption, int width, int height) {
    body_ += fmt::format("<figure><img src=\"data:image/png;base64,{}\" width=\"{}\" height=\"{}\" alt=\"{}\">"
                         "<figcaption>{}</figcaption></figure>\n",
                         base64(png), width, height, html_escape(caption), html_escape(caption));
}

void HtmlPage::raw(std::string_view html) { body_ += html; }

std::string HtmlPage::str() const {
    // Sizes are the PNGs' own (1000 px wide); narrower windows scale them down.
    static constexpr std::string_view STYLE =
        "body{font-family:sans-serif;margin:1.5em auto;max-width:1040px;padding:0 1em;color:#222}"
        "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}"
        "pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:12px;line-height:1.3}"
        "figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #eee}"
        "figcaption{font-size:.9em;color:#555}"
        "table{border-collapse:collapse;font-size:13px;display:block;overflow-x:auto;max-width:100%}"
        "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:right}th{background:#f0f0f0}"
        "td:first-child,th:first-child{text-align:left}";
    return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n"
                       "<style>{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n{2}</body>\n</html>\n",
                       html_escape(title_), STYLE, body_);
}

}  // namespace blksim::cli
