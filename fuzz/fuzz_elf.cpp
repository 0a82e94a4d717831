// Symbolization from a hostile binary: the input is the ELF file. It is held in a memfd and
// named, through /proc/self/fd, by the one mapping of a small gperftools profile whose samples
// cover the first 64 KiB of the mapping (each also as a caller's frame, so return-address
// lookups run too); profpack_profile_symbolize, from the symbol tables alone and with DWARF,
// must name what it can and warn about the rest, never crash, and the result must answer
// queries and store as .ppk.
#include <string>

#include "fuzz_symbolize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = fuzz::memfdOf("fuzz-elf", data, size);
  if (fd < 0) return 0;
  // Addresses over the mapping's first 64 KiB.
  const std::string prof = fuzz::profileOf(
      0x400000, [](uint64_t k) { return k * 256 + 1; },
      [](uint64_t k) { return (k * 977) % 65536 + 1; },
      "400000-410000 r-xp 00000000 00:00 0 /proc/self/fd/" + std::to_string(fd) + "\n");
  profpack_profile* p = nullptr;
  fuzz::findingIf(profpack_read_memory(prof.data(), prof.size(), nullptr, &p) != PROFPACK_OK,
                  "the harness's own profile did not read");
  // From the symbol tables alone first (the choice among aliases perf makes), then with DWARF.
  profpack_symbolize_options tablesOnly;
  profpack_symbolize_options_init(&tablesOnly);
  tablesOnly.symbol_tables_only = 1;
  const profpack_symbolize_options* const modes[] = {&tablesOnly, nullptr};
  for (const profpack_symbolize_options* o : modes) {
    profpack_profile* s = nullptr;
    fuzz::findingIf(profpack_profile_symbolize(p, o, &s) != PROFPACK_OK,
                    "symbolize failed rather than warning");
    fuzz::checkNamed(s);
  }
  profpack_profile_free(p);
  close(fd);
  return 0;
}
