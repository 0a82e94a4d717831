// What the symbolization harnesses (fuzz_elf, fuzz_kallsyms) share: the input held in a memfd,
// a gperftools profile whose samples hit one mapping, and the checks of the named result.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "fuzz_common.h"

namespace fuzz {

// The input as a file: a memfd (-1 if none could be made), named by /proc/self/fd/N.
inline int memfdOf(const char* name, const uint8_t* data, size_t size) {
  const int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd >= 0 && size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return -1;
  }
  return fd;
}

// A 64-bit little-endian gperftools CPU profile of 256 two-frame records at `start` + the
// k-th `leaf(k)` and `caller(k)` (a caller's frame: looked up one byte lower), with `maps` as
// its mapping text.
template <class Leaf, class Caller>
std::string profileOf(uint64_t start, Leaf leaf, Caller caller, const std::string& maps) {
  std::string p;
  auto put = [&p](uint64_t v) {
    for (int i = 0; i < 8; ++i) p.push_back(static_cast<char>(v >> (8 * i)));
  };
  for (uint64_t v : {0, 3, 0, 10000, 0}) put(v);  // header: count, words, version, period
  for (uint64_t k = 0; k < 256; ++k) {
    put(1);
    put(2);
    put(start + leaf(k));
    put(start + caller(k));
  }
  for (uint64_t v : {0, 1, 0}) put(v);  // trailer
  return p + maps;
}

// A named profile answers queries and stores as .ppk; it is freed.
inline void checkNamed(profpack_profile* s) {
  size_t ids[8], n = 0, count = 0;
  findingIf(profpack_profile_top_functions(s, 0, PROFPACK_TOP_INCLUSIVE, ids, 8, &n) != PROFPACK_OK,
            "top failed on a symbolized profile");
  for (size_t i = 0; i < n && i < 8; ++i) {
    profpack_function f;
    findingIf(profpack_profile_function(s, ids[i], &f) != PROFPACK_OK || !f.name,
              "a symbolized function could not be described");
    profpack_profile_line_costs(s, f.file, 0, nullptr, 0, &count);
  }
  void* out = nullptr;
  size_t outSize = 0;
  findingIf(profpack_write_memory(s, PROFPACK_FORMAT_PPK, nullptr, &out, &outSize) != PROFPACK_OK,
            "a symbolized profile could not be stored as .ppk");
  profpack_free(out);
  profpack_profile_free(s);
}

}  // namespace fuzz
