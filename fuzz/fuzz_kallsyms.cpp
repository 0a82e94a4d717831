// Kernel frames named from a hostile kallsyms table (--kallsyms FILE, or the copy in perf's
// build-id cache): the input is the table. It is held in a memfd and named, through
// /proc/self/fd, as the table of a small gperftools profile whose one mapping is the kernel's
// ([kernel.kallsyms]) and whose samples spread over kernel text (each also as a caller's frame,
// so return-address lookups run too). profpack_profile_symbolize must name what it can and warn
// about the rest, never crash; the result must answer queries and store as .ppk.
#include <string>

#include "fuzz_symbolize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = fuzz::memfdOf("fuzz-kallsyms", data, size);
  if (fd < 0) return 0;
  // Addresses over the mapping's first 16 MiB.
  static const std::string prof = fuzz::profileOf(
      0xffffffff81000000, [](uint64_t k) { return k * 65521; },
      [](uint64_t k) { return (k * 977) % (uint64_t{1} << 24) + 1; },
      "ffffffff81000000-ffffffffc1000000 r-xp 00000000 00:00 0 [kernel.kallsyms]\n");
  profpack_profile* p = nullptr;
  fuzz::findingIf(profpack_read_memory(prof.data(), prof.size(), nullptr, &p) != PROFPACK_OK,
                  "the harness's own profile did not read");
  const std::string table = "/proc/self/fd/" + std::to_string(fd);
  profpack_symbolize_options o;
  profpack_symbolize_options_init(&o);
  o.kallsyms = table.c_str();
  profpack_profile* s = nullptr;
  fuzz::findingIf(profpack_profile_symbolize(p, &o, &s) != PROFPACK_OK,
                  "symbolize failed rather than warning");
  fuzz::checkNamed(s);
  profpack_profile_free(p);
  close(fd);
  return 0;
}
