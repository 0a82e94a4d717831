// Kernel frames named from a hostile kallsyms table (--kallsyms FILE, or the copy in perf's
// build-id cache): the input is the table. It is held in a memfd and named, through
// /proc/self/fd, as the table of a small gperftools profile whose one mapping is the kernel's
// ([kernel.kallsyms]) and whose samples spread over kernel text (each also as a caller's frame,
// so return-address lookups run too). profpack_profile_symbolize must name what it can and warn
// about the rest, never crash; the result must answer queries and store as .ppk.
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "fuzz_common.h"

namespace {

void put(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// A 64-bit little-endian gperftools CPU profile of 256 two-frame records in the kernel's
// mapping, addresses spread over its first 16 MiB and past its last byte.
std::string profile() {
  constexpr uint64_t kStart = 0xffffffff81000000;
  std::string p;
  for (uint64_t v : {0, 3, 0, 10000, 0}) put(p, v);  // header: count, words, version, period
  for (uint64_t k = 0; k < 256; ++k) {
    put(p, 1);
    put(p, 2);
    put(p, kStart + k * 65521);
    put(p, kStart + (k * 977) % (uint64_t{1} << 24) + 1);  // a caller: looked up one byte lower
  }
  for (uint64_t v : {0, 1, 0}) put(p, v);  // trailer
  p += "ffffffff81000000-ffffffffc1000000 r-xp 00000000 00:00 0 [kernel.kallsyms]\n";
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("fuzz-kallsyms", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  static const std::string prof = profile();
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
  size_t ids[8], n = 0;
  fuzz::findingIf(
      profpack_profile_top_functions(s, 0, PROFPACK_TOP_INCLUSIVE, ids, 8, &n) != PROFPACK_OK,
      "top failed on a symbolized profile");
  for (size_t i = 0; i < n && i < 8; ++i) {
    profpack_function f;
    fuzz::findingIf(profpack_profile_function(s, ids[i], &f) != PROFPACK_OK || !f.name,
                    "a symbolized function could not be described");
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
