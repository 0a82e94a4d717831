// perf record -z: the records perf read from its ring buffers are kept zstd-compressed in
// PERF_RECORD_COMPRESSED records (perf.data-file-format.txt; the header's HEADER_COMPRESSED
// feature says so). Their payloads are one zstd stream, decompressed in order, and a record may
// end in one payload and go on in the next: the stream is made whole here, the records perf
// wrote uncompressed (its own synthesized comm and mmap records, FINISHED_ROUND) in their
// places, and then read as any recording's records are.
#include "formats/perf/compressed.h"

#include <zstd.h>

#include <string>

#include "error.h"
#include "formats/perf/fields.h"
#include "util/zstd_ctx.h"

namespace profpack::perf {

namespace {

constexpr size_t kBlockHeader = 3;  // a zstd block's header (the format's; zstd.h's static API)

}  // namespace

bool holdsCompressed(std::span<const uint8_t> d, uint64_t begin, uint64_t end) {
  const Bytes b{d};
  for (uint64_t at = begin; at < end && end - at >= 8;) {
    const uint16_t size = b.u16(at + 6);
    if (b.u32(at) == kCompressed) return true;
    if (size < 8) return false;  // the reader says what is wrong
    at += size;
  }
  return false;
}

std::vector<uint8_t> expandCompressed(std::span<const uint8_t> d, uint64_t begin, uint64_t end) {
  const Bytes b{d};
  std::vector<uint8_t> out;
  ZstdDCtx ctx;
  if (!ctx.p) throw Error(Status::noMemory, kFmt, "no memory for a zstd decompression context");
  // Payload bytes so far: the output is bounded by them.
  uint64_t compressed = 0;
  // What the decoder wants next: perf flushes the stream after each of its buffers and never
  // ends the frame, so a whole stream ends where the decoder waits for the next block's header
  // (or, ended, for nothing); anything else is a block cut short, whose records would be lost.
  size_t hint = 0;
  uint64_t last = end;
  for (uint64_t at = begin; at < end;) {
    if (end - at < 8) bad(at, "record header cut short");
    const uint32_t type = b.u32(at);
    const uint16_t size = b.u16(at + 6);
    if (size < 8 || end - at < size)
      bad(at, "record of type " + std::to_string(type) + " with size " + std::to_string(size) +
                  (size < 8 ? " (less than its header)" : " past the end of the data"));
    uint64_t next = at + size;
    // Records whose payload follows them, outside their size (as the reader skips them).
    if (type == kHeaderTracingData && size >= 12) next += b.u32(at + 8);
    if (type == kAuxtrace && size >= 16) {
      const uint64_t n = b.u64(at + 8);
      next = n > end - next ? end + 1 : next + n;
    }
    if (next > end) bad(at, "record payload past the end of the data");
    if (type != kCompressed) {
      out.insert(out.end(), d.begin() + static_cast<ptrdiff_t>(at),
                 d.begin() + static_cast<ptrdiff_t>(next));
      at = next;
      continue;
    }
    compressed += size - 8;
    last = at;
    ZSTD_inBuffer in{d.data() + at + 8, size - 8u, 0};
    for (bool full = true; in.pos < in.size || full;) {
      if (out.size() > kMaxExpansion * compressed + (uint64_t{1} << 20))
        bad(at, "the compressed records decompress to more than " + std::to_string(kMaxExpansion) +
                    " times their size");
      const size_t before = out.size();
      out.resize(before + ZSTD_DStreamOutSize());
      ZSTD_outBuffer o{out.data() + before, ZSTD_DStreamOutSize(), 0};
      const size_t rc = ZSTD_decompressStream(ctx.p, &o, &in);
      out.resize(before + o.pos);
      if (ZSTD_isError(rc))
        bad(at, std::string("PERF_RECORD_COMPRESSED: zstd: ") + ZSTD_getErrorName(rc));
      full = o.pos == o.size;  // more may be waiting in the decoder
      hint = rc;
    }
    at = next;
  }
  if (hint != 0 && hint != kBlockHeader)
    bad(last, "the compressed records end inside a zstd block: the stream is cut short");
  return out;
}

}  // namespace profpack::perf
