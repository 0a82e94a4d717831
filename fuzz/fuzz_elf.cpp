// Symbolization from a hostile binary: the input is the ELF file. It is held in a memfd and
// named, through /proc/self/fd, by the one mapping of a small gperftools profile whose samples
// cover the first 64 KiB of the mapping (each also as a caller's frame, so return-address
// lookups run too); profpack_profile_symbolize, from the symbol tables alone and with DWARF,
// must name what it can and warn about the rest, never crash, and the result must answer
// queries and store as .ppk.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "fuzz_common.h"

namespace {

void put(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// A 64-bit little-endian gperftools CPU profile of 256 two-frame records in one mapping.
std::string profileOf(const std::string& binary) {
  constexpr uint64_t kStart = 0x400000;
  std::string p;
  for (uint64_t v : {0, 3, 0, 10000, 0}) put(p, v);  // header: count, words, version, period
  for (uint64_t k = 0; k < 256; ++k) {
    put(p, 1);
    put(p, 2);
    put(p, kStart + k * 256 + 1);
    put(p, kStart + (k * 977) % 65536 + 1);  // a caller's frame: looked up one byte lower
  }
  for (uint64_t v : {0, 1, 0}) put(p, v);  // trailer
  p += "400000-410000 r-xp 00000000 00:00 0 " + binary + "\n";
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  const std::string prof = profileOf("/proc/self/fd/" + std::to_string(fd));
  profpack_profile* p = nullptr;
  fuzz::findingIf(profpack_read_memory(prof.data(), prof.size(), nullptr, &p) != PROFPACK_OK,
                  "the harness's own profile did not read");
  profpack_profile* s = nullptr;
  // From the symbol tables alone first (the choice among aliases perf makes), then with DWARF.
  profpack_symbolize_options tablesOnly;
  profpack_symbolize_options_init(&tablesOnly);
  tablesOnly.symbol_tables_only = 1;
  profpack_status st = profpack_profile_symbolize(p, &tablesOnly, &s);
  fuzz::findingIf(st != PROFPACK_OK, "symbolize from symbol tables failed rather than warning");
  profpack_profile_free(s);
  s = nullptr;
  st = profpack_profile_symbolize(p, nullptr, &s);
  fuzz::findingIf(st != PROFPACK_OK, "symbolize failed rather than warning");
  size_t ids[8], n = 0, count = 0;
  st = profpack_profile_top_functions(s, 0, PROFPACK_TOP_INCLUSIVE, ids, 8, &n);
  fuzz::findingIf(st != PROFPACK_OK, "top failed on a symbolized profile");
  for (size_t i = 0; i < n && i < 8; ++i) {
    profpack_function f;
    fuzz::findingIf(profpack_profile_function(s, ids[i], &f) != PROFPACK_OK || !f.name,
                    "a symbolized function could not be described");
    profpack_profile_line_costs(s, f.file, 0, nullptr, 0, &count);
  }
  void* out = nullptr;
  size_t outSize = 0;
  fuzz::findingIf(
      profpack_write_memory(s, PROFPACK_FORMAT_PPK, nullptr, &out, &outSize) != PROFPACK_OK,
      "a symbolized profile could not be stored as .ppk");
  profpack_free(out);
  profpack_profile_free(s);
  profpack_profile_free(p);
  close(fd);
  return 0;
}
