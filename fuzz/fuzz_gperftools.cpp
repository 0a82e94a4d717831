#include <cstring>
#include <string>

#include "fuzz_common.h"

namespace {

// The input read again with PROFPACK_READ_DEFER_IR must fail the same way or give the same
// outputs: pprof from the reader's tree, then .ppk (the deferred columns built then) with the
// bytes of the eager reading's .ppk.
void deferredMatches(const uint8_t* data, size_t size) {
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  ro.format = PROFPACK_FORMAT_GPERFTOOLS;
  profpack_profile* eager = nullptr;
  const profpack_status se = profpack_read_memory(data, size, &ro, &eager);
  const std::string eagerError = profpack_last_error()->message;
  ro.flags = PROFPACK_READ_DEFER_IR;
  profpack_profile* deferred = nullptr;
  const profpack_status sd = profpack_read_memory(data, size, &ro, &deferred);
  fuzz::findingIf(sd != se || eagerError != profpack_last_error()->message,
                  "reading with PROFPACK_READ_DEFER_IR failed otherwise");
  if (se == PROFPACK_OK) {
    profpack_write_options wo;
    profpack_write_options_init(&wo);
    profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, 1);
    for (profpack_format f : {PROFPACK_FORMAT_PPROF, PROFPACK_FORMAT_PPK}) {
      void *a = nullptr, *b = nullptr;
      size_t na = 0, nb = 0;
      const profpack_status wd = profpack_write_memory(deferred, f, &wo, &a, &na);
      const profpack_status we = profpack_write_memory(eager, f, &wo, &b, &nb);
      fuzz::findingIf(wd != we || na != nb || (na && std::memcmp(a, b, na) != 0),
                      "a profile read with PROFPACK_READ_DEFER_IR wrote other bytes");
      profpack_free(a);
      profpack_free(b);
    }
  }
  profpack_profile_free(deferred);
  profpack_profile_free(eager);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  deferredMatches(data, size);
  return fuzz::roundTrip(data, size, PROFPACK_FORMAT_GPERFTOOLS);
}
