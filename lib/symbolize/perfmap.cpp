#include "symbolize/perfmap.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "util/io.h"

namespace profpack {

bool isJitMapping(const std::string& path) {
  return path == "//anon" || path.rfind("/dev/zero", 0) == 0 ||
         path.rfind("/anon_hugepage", 0) == 0 || path.rfind("/memfd:", 0) == 0;
}

namespace {

// A hex number at the start of `s` (no 0x, as perf's maps write it), and the rest after one
// run of spaces; false where there is none or it overflows.
bool hexField(std::string_view& s, uint64_t& v) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  if (s.empty() || s.front() != ' ') return false;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return true;
}

}  // namespace

std::unique_ptr<PerfMap> PerfMap::load(const std::string& path, std::string& why) {
  std::unique_ptr<InputFile> file;
  try {
    file = std::make_unique<InputFile>(path);
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
  const std::span<const uint8_t> bytes = file->bytes();
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto map = std::unique_ptr<PerfMap>(new PerfMap());
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    uint64_t start = 0, size = 0;
    if (!hexField(line, start) || !hexField(line, size) || line.empty() || size == 0 ||
        start + size < start)
      continue;
    map->entries_.push_back({start, start + size, {SymbolFrame{std::string(line), "", 0}}});
  }
  if (map->entries_.empty()) {
    why = path + ": no \"START SIZE NAME\" line";
    return nullptr;
  }
  std::stable_sort(map->entries_.begin(), map->entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.start < b.start; });
  return map;
}

const std::vector<SymbolFrame>* PerfMap::lookup(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return nullptr;
  --it;
  return address < it->end ? &it->frame : nullptr;
}

}  // namespace profpack
