// Unaligned little-endian (host order on every supported machine) loads from byte buffers, and
// little-endian appends to a byte string.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace profpack {

inline uint16_t rd16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t rd64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline void appendLe32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
inline void appendLe64(std::string& s, uint64_t v) {
  appendLe32(s, static_cast<uint32_t>(v));
  appendLe32(s, static_cast<uint32_t>(v >> 32));
}

}  // namespace profpack
