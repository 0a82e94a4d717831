#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::roundTrip(data, size, PROFPACK_FORMAT_PPROF, true);
}
