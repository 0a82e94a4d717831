// What the DCPI reader, writer and IR decoder share (internal to lib/formats/dcpi/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "error.h"
#include "formats/dcpi/dcpi.h"

namespace profpack::dcpi {

inline constexpr const char* kFmt = "dcpi";

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool allOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

// Parses "pdb-<major>.<minor>"; returns false if the value does not have that form.
inline bool parseVersion(std::string_view v, uint64_t& major) {
  if (!v.starts_with("pdb-")) return false;
  v.remove_prefix(4);
  size_t dot = v.find('.');
  if (dot == v.npos) return false;
  std::string_view ma = v.substr(0, dot), mi = v.substr(dot + 1);
  if (!allOf(ma, isDigit) || !allOf(mi, isDigit)) return false;
  major = 0;
  for (char c : ma) {
    if (major > (~uint64_t{0} - 9) / 10) return false;
    major = major * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

// Text of exactly these bytes (a NUL inside a header line is kept too).
struct TextOf {
  explicit TextOf(std::string_view v) : s(v) {}
  operator capnp::Text::Reader() const { return capnp::Text::Reader(s.c_str(), s.size()); }
  std::string s;
};

// Stores a header line (text, key and value exactly as given, a NUL byte included).
void setHeaderLine(ir::HeaderLine::Builder b, std::string_view text, std::string_view key,
                   std::string_view value);

// A stored image that breaks the ImageHistogram invariants.
[[noreturn]] void corruptImage(const std::string& what);
// Decodes and checks the chunk columns (not the counts); returns the number of counts.
uint64_t decodeChunks(ir::ImageHistogram::Reader image, DcpiImage& d);

}  // namespace profpack::dcpi
