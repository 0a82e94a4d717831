#include "formats/dcpi/dcpi.h"

namespace profpack {

std::vector<DcpiAddressSamples> dcpiSamplesByAddress(const DcpiImage& d) {
  std::vector<DcpiAddressSamples> out;
  for (size_t k = 0; k < d.offset.size(); ++k) {
    const uint64_t base = d.textStart + d.offset[k];
    const uint64_t* c = d.counts.data() + d.firstCount[k];
    for (uint64_t i = 0; i < d.number[k]; ++i)
      if (c[i]) out.push_back({base + 4 * i, c[i]});
  }
  return out;
}

}  // namespace profpack
