#include "fuzz_common.h"

// perf.data cannot be written back: the round trip goes through .ppk (the format is detected
// from the PERFILE2 magic every seed starts with).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::roundTrip(data, size, PROFPACK_FORMAT_UNKNOWN);
}
