#include "archive/frames.h"

#include <zdict.h>
#include <zstd.h>

#include <new>
#include <optional>

#include "error.h"
#include "util/zstd_ctx.h"

namespace profpack::archive {

namespace {

// The members' own bytes as a dictionary: at most 4 MiB, because reading any member of the
// segment decompresses the whole of it (and checks its checksum). Forty coded Callgrind
// profiles (5.25 MB coded; 4 MiB holds 31): 4 % fewer bytes than with 1 MiB on one set, 10 %
// on another, for 1.5-2 ms more a member read (9.1-9.9 ms against 7.8 ms, its single .ppk
// 4.7-6.1 ms; 2026-11-29).
constexpr size_t kRawDictBytes = size_t{4} << 20;
constexpr size_t kTrainedDictBytes = 110 << 10;

[[noreturn]] void malformed(uint64_t offset, const std::string& what) {
  throw Error(Status::malformed, "ppka", what, offset);
}

using CCtx = ZstdCCtx;
using DCtx = ZstdDCtx;

void check(size_t rc, const char* what) {
  if (ZSTD_isError(rc))
    throw Error(Status::internal, "ppka", std::string(what) + ": " + ZSTD_getErrorName(rc));
}

// One context for many frames at `level` with `dict`: zstd digests the dictionary once, for
// the first frame, not once a member (seconds for forty members and a dictionary of megabytes
// at level 19).
class Compressor {
 public:
  Compressor(int level, const std::string& dict) {
    if (!c_.p) throw std::bad_alloc();
    check(ZSTD_CCtx_setParameter(c_.p, ZSTD_c_compressionLevel, level), "zstd level");
    check(ZSTD_CCtx_setParameter(c_.p, ZSTD_c_checksumFlag, 1), "zstd checksum");
    if (!dict.empty()) check(ZSTD_CCtx_loadDictionary(c_.p, dict.data(), dict.size()), "zstd dict");
  }
  std::string operator()(const std::string& data) {
    std::string out(ZSTD_compressBound(data.size()), '\0');
    size_t n = ZSTD_compress2(c_.p, out.data(), out.size(), data.data(), data.size());
    check(n, "zstd compression");
    out.resize(n);
    return out;
  }

 private:
  CCtx c_;
};

// The members compressed with `dict` (empty: none); the dictionary's frame first where `own`.
// `at`: per member, where the dictionary holds it whole (-1: nowhere); such a member gets no
// frame (archive revision 3).
Built buildWith(const std::vector<std::string>& raws, const std::string& dict, bool own, int level,
                const std::vector<int64_t>& at = {}) {
  Built b;
  if (own && !dict.empty()) {
    b.blob = compress(dict, level, {});
    b.segment.dictSize = b.blob.size();
    b.segment.dictRawSize = dict.size();
  }
  std::optional<Compressor> with;
  for (size_t i = 0; i < raws.size(); ++i) {
    if (i < at.size() && at[i] >= 0) {
      b.frames.emplace_back(static_cast<uint64_t>(at[i]), 0);
      b.inDictionary.push_back(true);
      continue;
    }
    if (!with) with.emplace(level, dict);
    std::string frame = (*with)(raws[i]);
    b.frames.emplace_back(b.blob.size(), frame.size());
    b.inDictionary.push_back(false);
    b.blob += frame;
  }
  return b;
}

}  // namespace

std::string compress(const std::string& data, int level, const std::string& dict) {
  return Compressor(level, dict)(data);
}

std::string decompress(const std::string& frame, uint64_t rawSize, const std::string& dict,
                       uint64_t offset) {
  DCtx d;
  if (!d.p) throw std::bad_alloc();
  if (!dict.empty() && ZSTD_isError(ZSTD_DCtx_loadDictionary(d.p, dict.data(), dict.size())))
    malformed(offset, "unusable dictionary");
  unsigned long long content = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (content != rawSize)
    malformed(offset, "zstd frame holds " + std::to_string(content) + " bytes, the manifest says " +
                          std::to_string(rawSize));
  std::string out(rawSize, '\0');
  size_t n = ZSTD_decompressDCtx(d.p, out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n)) malformed(offset, std::string("corrupt data: ") + ZSTD_getErrorName(n));
  if (n != rawSize) malformed(offset, "short zstd frame");
  return out;
}

Built buildSegment(const std::vector<std::string>& raws, const std::string& previous, int level,
                   uint32_t revision) {
  std::vector<std::pair<std::string, bool>> dicts{{std::string(), false}};
  if (!previous.empty()) dicts.emplace_back(previous, false);
  std::optional<Built> inDict;  // the raw dictionary's, members kept in it
  if (raws.size() > 1) {
    std::string samples;
    std::vector<size_t> sizes;
    for (const auto& r : raws) samples += r, sizes.push_back(r.size());
    std::string trained(std::min(kTrainedDictBytes, samples.size() / 4 + 1024), '\0');
    size_t n = ZDICT_trainFromBuffer(trained.data(), trained.size(), samples.data(), sizes.data(),
                                     static_cast<unsigned>(sizes.size()));
    if (!ZDICT_isError(n)) dicts.emplace_back(trained.substr(0, n), true);
    std::string raw;
    std::vector<int64_t> at(raws.size(), -1);  // where the raw dictionary holds each member
    for (size_t i = 0; i < raws.size(); ++i)
      if (raw.size() + raws[i].size() <= kRawDictBytes || raw.empty()) {
        at[i] = static_cast<int64_t>(raw.size());
        raw += raws[i];
      }
    if (raw.size() > kRawDictBytes) {
      const int64_t cut = static_cast<int64_t>(raw.size() - kRawDictBytes);
      raw.erase(0, raw.size() - kRawDictBytes);
      for (int64_t& a : at) a = a >= cut ? a - cut : -1;
    }
    // Revision 3: the members the raw dictionary holds whole are kept in it, with no frame
    // (each frame there was a reference to its copy, 24 bytes of frame overhead for a few);
    // that is never larger than the same dictionary with a frame for each, which revision 2
    // writes.
    if (revision >= 3)
      inDict = buildWith(raws, raw, true, level, at);
    else
      dicts.emplace_back(raw, true);
  }
  Built best;
  bool have = false;
  if (inDict) best = std::move(*inDict), have = true;
  for (const auto& [dict, own] : dicts) {
    Built b = buildWith(raws, dict, own, level);
    if (!own && !dict.empty()) b.segment.dictSegment = ~uint32_t{0};  // the previous one
    if (!have || b.blob.size() < best.blob.size()) best = std::move(b), have = true;
  }
  return best;
}

}  // namespace profpack::archive
