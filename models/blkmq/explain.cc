#include "models/blkmq/explain.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace blksim::blkmq {

void Explain::say(sim::Time t, uint32_t cpu, fmt::string_view f, fmt::format_args args) const {
    fmt::memory_buffer buf;  // on the stack for any message of a few hundred bytes
    fmt::vformat_to(std::back_inserter(buf), f, args);
    sink_->message(dev_, t, cpu, std::string_view(buf.data(), std::min(buf.size(), MAX_MESSAGE_BYTES)));
}

}  // namespace blksim::blkmq
