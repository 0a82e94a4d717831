// Queries over the DCPI images of a profile: samples per address, per chunk, totals.

#include <algorithm>

#include "error.h"
#include "formats/dcpi/dcpi.h"

namespace profpack {

namespace {
DcpiImage imageOf(const Profile& profile, size_t image) {
  auto images = profile.root().getImages();
  if (images.size() == 0)
    throw Error(Status::invalidArgument, "dcpi", "the profile has no DCPI images");
  if (image >= images.size())
    throw Error(Status::invalidArgument, "dcpi",
                "image " + std::to_string(image) + " out of range: the profile has " +
                    std::to_string(images.size()) + " image(s)");
  return decodeDcpiImage(images[static_cast<unsigned>(image)]);
}
}  // namespace

std::vector<DcpiAddressSamples> dcpiSamplesByAddress(const Profile& profile, size_t image,
                                                     bool withZeros) {
  DcpiImage d = imageOf(profile, image);
  std::vector<DcpiAddressSamples> out;
  for (size_t k = 0; k < d.offset.size(); ++k) {
    const uint64_t base = d.textStart + d.offset[k];
    const uint64_t* c = d.counts.data() + d.firstCount[k];
    for (uint64_t i = 0; i < d.number[k]; ++i)
      if (withZeros || c[i]) out.push_back({base + 4 * i, c[i]});
  }
  return out;
}

std::vector<DcpiAddressSamples> dcpiTopAddresses(const Profile& profile, size_t n, size_t image) {
  std::vector<DcpiAddressSamples> all = dcpiSamplesByAddress(profile, image, false);
  auto more = [](const DcpiAddressSamples& a, const DcpiAddressSamples& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.address < b.address;
  };
  if (n < all.size()) {
    std::partial_sort(all.begin(), all.begin() + static_cast<ptrdiff_t>(n), all.end(), more);
    all.resize(n);
  } else {
    std::sort(all.begin(), all.end(), more);
  }
  return all;
}

std::vector<DcpiChunkSamples> dcpiSamplesByChunk(const Profile& profile, size_t image) {
  DcpiImage d = imageOf(profile, image);
  std::vector<DcpiChunkSamples> out;
  out.reserve(d.offset.size());
  for (size_t k = 0; k < d.offset.size(); ++k) {
    DcpiChunkSamples c{d.offset[k], d.textStart + d.offset[k], d.number[k], 0, 0};
    const uint64_t* v = d.counts.data() + d.firstCount[k];
    for (uint64_t i = 0; i < d.number[k]; ++i) {
      c.samples += v[i];
      c.addresses += v[i] != 0;
    }
    out.push_back(c);
  }
  return out;
}

DcpiTotals dcpiTotals(const Profile& profile, size_t image) {
  DcpiImage d = imageOf(profile, image);
  DcpiTotals t;
  t.chunks = d.offset.size();
  t.addresses = d.counts.size();
  for (uint64_t c : d.counts) {
    t.samples += c;
    t.addressesWithSamples += c != 0;
  }
  return t;
}

}  // namespace profpack
