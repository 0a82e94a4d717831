#include "fuzz_common.h"

// perf script text is read only: the round trip goes through .ppk, with the format named (the
// text has no magic of its own).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::roundTrip(data, size, PROFPACK_FORMAT_PERF_SCRIPT, /*alsoWriteSourceFormat=*/false,
                         PROFPACK_FORMAT_PPK);
}
