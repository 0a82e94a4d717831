// Telling Callgrind from Cachegrind text: Cachegrind's header holds only desc:, cmd: and
// events:, and its body only fl=, fn= and count lines; anything else is Callgrind.

#include <algorithm>
#include <cstring>
#include <string_view>

#include "formats/callgrind/callgrind.h"

namespace profpack {

namespace {

enum class Text { neither, callgrind, cachegrind };

Text detectText(std::span<const uint8_t> data) {
  // Text holds no NUL byte: one in the first 4 MiB says neither without a search for a line's
  // end through the whole input (1 GB of zeros was read through). A header line longer than
  // that (a long cmd:) is still read to its end.
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  if (!text.empty() && std::memchr(text.data(), 0, std::min(text.size(), size_t{4} << 20)))
    return Text::neither;
  size_t pos = 0;
  bool sawHeader = false;
  for (int lines = 0; pos < text.size() && lines < 4096; ++lines) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lines == 0 && line.starts_with("# callgrind format")) return Text::callgrind;
    if (line.empty() || line.front() == '#') continue;
    size_t colon = line.find(':');
    size_t eq = line.find('=');
    if (colon != line.npos && (eq == line.npos || colon < eq)) {
      std::string_view key = line.substr(0, colon);
      if (key == "desc" || key == "cmd" || key == "events") {
        sawHeader = true;
        continue;
      }
      if (key == "version" || key == "creator" || key == "pid" || key == "thread" ||
          key == "part" || key == "positions" || key == "event" || key == "summary" ||
          key == "totals")
        return Text::callgrind;
      return Text::neither;
    }
    // First body line.
    if (!sawHeader) return Text::neither;
    if (line.starts_with("fl=") || line.starts_with("fn=")) {
      // Look further: Callgrind-only body lines decide.
      std::string_view rest = text.substr(std::min(pos, text.size()), 1 << 20);
      for (const char* k : {"\nob=", "\ncalls=", "\ncfn=", "\ncfl=", "\nfi=", "\nfe=", "\njump=",
                            "\njcnd=", "\ntotals:"})
        if (rest.find(k) != rest.npos) return Text::callgrind;
      return Text::cachegrind;
    }
    return Text::neither;
  }
  return Text::neither;
}

}  // namespace

bool isCallgrind(std::span<const uint8_t> data) { return detectText(data) == Text::callgrind; }
bool isCachegrind(std::span<const uint8_t> data) { return detectText(data) == Text::cachegrind; }

}  // namespace profpack
