#include "symbolize/perfmap.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
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
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    why = path + ": " + std::strerror(errno);
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    why = path + ": not a regular file";
    return nullptr;
  }
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    why = path + ": owned by another user (uid " + std::to_string(st.st_uid) + "), not trusted";
    return nullptr;
  }
  auto map = std::unique_ptr<PerfMap>(new PerfMap());
  try {
    map->file_ = std::make_unique<InputFile>(path);
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
  const std::span<const uint8_t> bytes = map->file_->bytes();
  const std::string_view all(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::string_view text = all;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    uint64_t start = 0, size = 0;
    if (!hexField(line, start) || !hexField(line, size) || line.empty() || size == 0 ||
        start + size < start || line.size() > UINT32_MAX)
      continue;
    map->entries_.push_back({start, start + size, static_cast<uint64_t>(line.data() - all.data()),
                             static_cast<uint32_t>(line.size())});
  }
  if (map->entries_.empty()) {
    why = path + ": no \"START SIZE NAME\" line";
    return nullptr;
  }
  std::stable_sort(map->entries_.begin(), map->entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.start < b.start; });
  map->reach_.resize(map->entries_.size());
  uint64_t reach = 0;
  for (size_t i = 0; i < map->entries_.size(); ++i)
    map->reach_[i] = reach = std::max(reach, map->entries_[i].end);
  return map;
}

const std::vector<SymbolFrame>* PerfMap::lookup(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  // Back from the last entry starting at or below the address, while an entry so far back may
  // still reach it; a bounded number of steps (code nests a few deep, not thousands).
  size_t i = static_cast<size_t>(it - entries_.begin());
  for (int steps = 0; i > 0 && steps < 64; ++steps) {
    --i;
    if (reach_[i] <= address) return nullptr;
    const Entry& e = entries_[i];
    if (address < e.end) {
      auto [m, fresh] = made_.try_emplace(i);
      if (fresh) {
        const auto* p = reinterpret_cast<const char*>(file_->bytes().data()) + e.name;
        m->second.push_back({std::string(p, e.length), "", 0});
      }
      return &m->second;
    }
  }
  return nullptr;
}

}  // namespace profpack
