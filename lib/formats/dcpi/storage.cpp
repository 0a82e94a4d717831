// The IR's DCPI images read back (ImageHistogram in lib/ir/profile.capnp), checked against
// their invariants, and what the reader and the writer share.

#include <string>
#include <string_view>

#include "formats/dcpi/common.h"
#include "ir/column.h"

namespace profpack {

namespace dcpi {

void setHeaderLine(ir::HeaderLine::Builder b, std::string_view text, std::string_view key,
                   std::string_view value) {
  b.setText(TextOf(text));
  b.setKey(TextOf(key));
  b.setValue(TextOf(value));
  b.setPlacement(ir::HeaderLine::Placement::HEADER);
}

[[noreturn]] void corruptImage(const std::string& what) {
  throw Error(Status::malformed, "ppk", "DCPI image: " + what);
}

uint64_t decodeChunks(ir::ImageHistogram::Reader image, DcpiImage& d) {
  d.textStart = image.getTextStart();
  d.offset = decodeColumn(image.getChunkOffset());
  d.number = decodeColumn(image.getChunkLength());
  d.footerAddresses = image.getFooterAddresses();
  d.footerSamples = image.getFooterSamples();
  if (d.offset.size() != d.number.size())
    corruptImage("chunk offset and length columns have different lengths");
  d.firstCount.reserve(d.offset.size());
  uint64_t total = 0, nextFree = 0;
  for (size_t k = 0; k < d.offset.size(); ++k) {
    const uint64_t o = d.offset[k], n = d.number[k];
    if (o > 0xffffffffu || n == 0 || n > 0xffffffffu)
      corruptImage("chunk " + std::to_string(k) + " has an offset or count number outside 32 bits");
    if (k > 0 && o < nextFree)
      corruptImage("chunk " + std::to_string(k) + " overlaps or precedes the chunk before it");
    d.firstCount.push_back(total);
    total += n;
    nextFree = o + 4 * n;
  }
  if (total != image.getCounts().getCount())
    corruptImage("chunk lengths disagree with the number of counts");
  return total;
}

}  // namespace dcpi

using dcpi::corruptImage;
using dcpi::decodeChunks;

namespace {

// A `period` value as the reader admits it (decimal digits); 0 if it is not one or too large.
uint64_t parsePeriod(std::string_view v) {
  uint64_t p = 0;
  if (v.empty() || v.size() > 19) return 0;
  for (char c : v) {
    if (c < '0' || c > '9') return 0;
    p = p * 10 + static_cast<uint64_t>(c - '0');
  }
  return p;
}

}  // namespace

DcpiImage decodeDcpiImage(ir::ImageHistogram::Reader image) {
  DcpiImage d;
  decodeChunks(image, d);
  d.counts = decodeColumn(image.getCounts());
  for (uint64_t c : d.counts)
    if (c > 0xffffffffu) corruptImage("a count does not fit in 32 bits");
  for (auto l : image.getHeaderLines()) {
    if (l.getKey() == "event" && d.event.empty()) d.event = l.getValue().cStr();
    if (l.getKey() == "path" && d.path.empty()) d.path = l.getValue().cStr();
    if (l.getKey() == "period" && d.period == 0) d.period = parsePeriod(l.getValue().cStr());
  }
  return d;
}

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
