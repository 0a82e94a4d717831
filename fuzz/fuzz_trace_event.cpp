#include "fuzz_common.h"

// Read as trace_event; every query and writer, a merge and a difference with itself; stored as
// .ppk and read back to an equal IR (the format's own writer, where it has one, orders and
// sums stacks, so its output is not the same IR).
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::roundTrip(data, size, PROFPACK_FORMAT_TRACE_EVENT, /*alsoWriteSourceFormat=*/true,
                         PROFPACK_FORMAT_PPK);
}
