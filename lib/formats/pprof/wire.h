// Protocol buffer wire format, the few pieces the pprof writer's profile.proto needs.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace profpack::pprofwire {

inline void varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
inline void tag(std::string& out, unsigned field, unsigned wire) { varint(out, field << 3 | wire); }
inline void uintField(std::string& out, unsigned field, uint64_t v) {
  if (v == 0) return;  // proto3: defaults are not written
  tag(out, field, 0);
  varint(out, v);
}
inline void bytesField(std::string& out, unsigned field, std::string_view bytes) {
  tag(out, field, 2);
  varint(out, bytes.size());
  out.append(bytes);
}
inline size_t varintSize(uint64_t v) {
  return 1 + static_cast<size_t>(std::bit_width(v | 1) - 1) / 7;
}
// Writes `v` as a varint at `p`; returns the end.
inline char* putVarint(char* p, uint64_t v) {
  for (; v >= 0x80; v >>= 7) *p++ = static_cast<char>(v | 0x80);
  *p++ = static_cast<char>(v);
  return p;
}

}  // namespace profpack::pprofwire
