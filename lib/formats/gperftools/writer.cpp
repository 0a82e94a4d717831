// gperftools CPU profile writer: the profile as read, in the slot width and byte order read or
// chosen (see gperftools.h).

#include <cstring>
#include <string>

#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "util/text.h"

namespace profpack {

namespace {
constexpr const char* kFmt = "gperftools";
}  // namespace

std::string writeGperftools(const Profile& profile, const GperfWriteOptions& options) {
  auto root = profile.root();
  if (root.getFormat() != ir::Format::GPERFTOOLS)
    throw Error(Status::unsupported, kFmt,
                "the profile holds no stack samples, so it cannot be written as a gperftools "
                "CPU profile");
  auto st = root.getStacks();
  unsigned w = options.slotBytes ? options.slotBytes : st.getSlotBytes();
  if (w != 4 && w != 8)
    throw Error(Status::invalidArgument, kFmt,
                "slot width must be 4 or 8 bytes, not " + std::to_string(w));
  bool be = options.byteOrder == GperfWriteOptions::ByteOrder::asRead
                ? st.getBigEndian()
                : options.byteOrder == GperfWriteOptions::ByteOrder::big;
  DecodedStacks d = decodeStacks(st);
  auto hdr = st.getHeaderSlots();
  auto trailer = st.getTrailerSlots();
  auto text = st.getMapsText();
  if (hdr.size() < 5) throw Error(Status::malformed, "ppk", "gperftools header has < 5 slots");
  if (trailer.size() != 3)
    throw Error(Status::malformed, "ppk", "gperftools trailer is not 3 slots");

  // Depth of every node (its chain length) and the total size.
  std::vector<uint32_t> depth(d.nodes() + 1, 0);
  for (size_t n = 1; n <= d.nodes(); ++n) depth[n] = depth[d.parentOf(n)] + 1;
  // A few hundred bytes of IR can describe gigabytes of file (many records naming a deep
  // node). Real profiles write 40-70 bytes of file per byte of these columns, so outputs beyond
  // 4096 times them (and 256 MiB) are refused, not left to the allocator (or to the kernel's
  // out-of-memory killer after an overcommitted allocation).
  uint64_t irBytes = text.size();
  for (auto column : {st.getNodeParent(), st.getNodeAddress(), st.getNodeAddressEscapes(),
                      st.getSampleCount(), st.getSampleNode(), st.getTailRanks()})
    for (auto chunk : column.getChunks()) irBytes += chunk.size();
  uint64_t maxBytes = std::max<uint64_t>(uint64_t{256} << 20, irBytes * 4096);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  maxBytes = uint64_t{256} << 20;  // the fuzzers' memory limit
#endif
  if (options.maxBytes) maxBytes = std::min(maxBytes, options.maxBytes);
  uint64_t bytes = (hdr.size() + 3) * w + text.size();
  for (uint64_t n : d.node) {
    bytes += (2 + depth[n]) * w;
    if (bytes > maxBytes)
      throw Error(Status::limit, kFmt,
                  "the profile would be larger than " + std::to_string(maxBytes) +
                      " bytes as a file (the limit for " + std::to_string(irBytes) +
                      " bytes of stack columns)");
  }

  if (w == 4) {
    auto check = [](uint64_t v, const std::string& what) {
      if (v > UINT32_MAX)
        throw Error(Status::unsupported, kFmt,
                    what + " " + hexString(v) +
                        " does not fit a 4-byte slot; cannot write a 32-bit "
                        "profile");
    };
    for (unsigned i = 0; i < hdr.size(); ++i) check(hdr[i], "header slot " + std::to_string(i));
    for (unsigned i = 0; i < 3; ++i) check(trailer[i], "trailer slot " + std::to_string(i));
    for (size_t r = 0; r < d.count.size(); ++r)
      check(d.count[r], "sample count of record " + std::to_string(r));
    for (size_t n = 0; n < d.address.size(); ++n) check(d.address[n], "address");
  }

  std::string out;
  out.resize(bytes);
  char* o = out.data();
  auto put = [&](uint64_t v) {
    if (w == 4) {
      uint32_t x = static_cast<uint32_t>(v);
      if (be != (std::endian::native == std::endian::big)) x = __builtin_bswap32(x);
      std::memcpy(o, &x, 4);
    } else {
      if (be != (std::endian::native == std::endian::big)) v = __builtin_bswap64(v);
      std::memcpy(o, &v, 8);
    }
    o += w;
  };
  for (unsigned i = 0; i < hdr.size(); ++i) put(hdr[i]);
  for (size_t r = 0; r < d.count.size(); ++r) {
    uint64_t n = d.node[r];
    put(d.count[r]);
    put(depth[n]);
    for (; n != 0; n = d.parentOf(n)) put(d.addressOf(n));
  }
  for (unsigned i = 0; i < 3; ++i) put(trailer[i]);
  if (text.size()) std::memcpy(o, text.begin(), text.size());
  return out;
}

}  // namespace profpack
