#include "util/text.h"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

#include "error.h"

namespace profpack {

const void* LineCursor::memchr_(const char* p, size_t n) { return std::memchr(p, '\n', n); }

bool splitKey(std::string_view line, std::string_view& key, std::string_view& value) {
  size_t colon = line.find(':');
  if (colon == line.npos || colon == 0) return false;
  key = line.substr(0, colon);
  for (char c : key)
    if (isSpace(c) || c == '=') return false;
  value = line.substr(colon + 1);
  while (!value.empty() && isSpace(value.front())) value.remove_prefix(1);
  return true;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && isSpace(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !isSpace(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

NumResult parseNumber(std::string_view s, size_t& pos, uint64_t& out) {
  const char* b = s.data() + pos;
  const char* e = s.data() + s.size();
  int base = 10;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    base = 16;
    b += 2;
  }
  auto [p, ec] = std::from_chars(b, e, out, base);
  if (ec == std::errc::result_out_of_range) return NumResult::overflow;
  if (ec != std::errc() || p == b) return NumResult::notNumber;
  pos = static_cast<size_t>(p - s.data());
  return NumResult::ok;
}

void rejectNul(std::span<const uint8_t> data, const char* format) {
  rejectNul(data, 0, data.size(), format);
}

void rejectNul(std::span<const uint8_t> data, size_t from, size_t to, const char* format) {
  if (from >= to) return;  // (and memchr on an empty span's null pointer is undefined)
  const void* nul = std::memchr(data.data() + from, 0, to - from);
  if (!nul) return;
  size_t off = static_cast<size_t>(static_cast<const uint8_t*>(nul) - data.data());
  uint64_t line = 1 + static_cast<uint64_t>(std::count(data.begin(), data.begin() + off, '\n'));
  fail(format, off, line, "NUL byte in a text profile (expected printable text)");
}

void appendDecimal(std::string& out, uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, p);
}

void appendCost(std::string& out, uint64_t v, bool isSigned) {
  if (isSigned && static_cast<int64_t>(v) < 0) {
    out += '-';
    v = ~v + 1;  // the magnitude, also of INT64_MIN
  }
  appendDecimal(out, v);
}

void appendHex(std::string& out, uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  (void)ec;
  out += "0x";
  out.append(buf, p);
}

std::string hexBytes(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string hexDigits(uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  (void)ec;
  return std::string(buf, p);
}

std::string hexString(uint64_t v) {
  std::string s;
  appendHex(s, v);
  return s;
}

std::string demangle(const char* name) {
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string s(d);
  std::free(d);
  return s;
}

}  // namespace profpack
