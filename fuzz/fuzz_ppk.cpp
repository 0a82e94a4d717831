#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A .ppk can hold any IR: besides the .ppk round trip, the profile's own writer must cope
  // with whatever the container accepted (an error is fine, a crash is not).
  return fuzz::roundTrip(data, size, PROFPACK_FORMAT_PPK, /*alsoWriteSourceFormat=*/true);
}
