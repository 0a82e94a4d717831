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

bool isCompressed(uint32_t type) { return type == kCompressed || type == kCompressed2; }

}  // namespace

bool holdsCompressed(std::span<const uint8_t> d, uint64_t begin, uint64_t end) {
  const Bytes b{d};
  for (uint64_t at = begin; at < end;) {
    const uint64_t next = recordEnd(b, at, end);
    if (next == 0) return false;  // the reader says what is wrong
    if (isCompressed(b.u32(at))) return true;
    at = next;
  }
  return false;
}

std::vector<uint8_t> expandCompressed(std::span<const uint8_t> d, uint64_t begin, uint64_t end,
                                      bool unfinished) {
  const Bytes b{d};
  std::vector<uint8_t> out;
  ZstdDCtx ctx;
  if (!ctx.p) throw Error(Status::noMemory, kFmt, "no memory for a zstd decompression context");
  // The compressed bytes so far and what they decompressed to: the one bounds the other.
  uint64_t compressed = 0, produced = 0;
  // What the decoder wants next: perf flushes the stream after each of its buffers and never
  // ends the frame, so a whole stream ends where the decoder waits for the next block's header
  // (or, ended, for nothing); anything else is a block cut short, whose records would be lost.
  size_t hint = 0;
  uint64_t last = end;
  for (uint64_t at = begin; at < end;) {
    const uint64_t next = recordEnd(b, at, end);
    const uint32_t type = end - at >= 8 ? b.u32(at) : 0;
    // A recording perf did not finish: the record the file's end cuts is left to the reader,
    // which says where the records end (the stream before it is whole).
    if (next == 0 && unfinished && (end - at < 8 || b.u16(at + 6) >= 8)) {
      out.insert(out.end(), d.begin() + static_cast<ptrdiff_t>(at),
                 d.begin() + static_cast<ptrdiff_t>(end));
      return out;
    }
    if (next == 0)
      bad(at, end - at < 8 ? std::string("record header cut short")
                           : "record of type " + std::to_string(type) + " with size " +
                                 std::to_string(b.u16(at + 6)) +
                                 " (less than its header, or past the end of the data)");
    if (!isCompressed(type)) {
      out.insert(out.end(), d.begin() + static_cast<ptrdiff_t>(at),
                 d.begin() + static_cast<ptrdiff_t>(next));
      at = next;
      continue;
    }
    // PERF_RECORD_COMPRESSED: the payload fills the record. PERF_RECORD_COMPRESSED2 (later
    // perf): a u64 of the payload's size, then the payload, padded to 8 bytes.
    uint64_t from = at + 8, bytes = next - from;
    if (type == kCompressed2) {
      if (bytes < 8 || b.u64(at + 8) > bytes - 8)
        bad(at, "PERF_RECORD_COMPRESSED2 whose data size runs past its record");
      bytes = b.u64(at + 8);
      from = at + 16;
    }
    compressed += bytes;
    last = at;
    ZSTD_inBuffer in{d.data() + from, static_cast<size_t>(bytes), 0};
    for (bool full = true; in.pos < in.size || full;) {
      if (produced > kMaxExpansion * compressed + (uint64_t{1} << 20))
        bad(at, "the compressed records decompress to more than " + std::to_string(kMaxExpansion) +
                    " times their size");
      const size_t before = out.size();
      out.resize(before + ZSTD_DStreamOutSize());
      ZSTD_outBuffer o{out.data() + before, ZSTD_DStreamOutSize(), 0};
      const size_t rc = ZSTD_decompressStream(ctx.p, &o, &in);
      out.resize(before + o.pos);
      produced += o.pos;
      if (ZSTD_isError(rc))
        bad(at, std::string("PERF_RECORD_COMPRESSED: zstd: ") + ZSTD_getErrorName(rc));
      full = o.pos == o.size;  // more may be waiting in the decoder
      hint = rc;
    }
    at = next;
  }
  // (Unfinished: the blocks before the cut are the records, the last of them cut where the
  // block was; the reader says where they end.)
  if (hint != 0 && hint != kBlockHeader && !unfinished)
    bad(last, "the compressed records end inside a zstd block: the stream is cut short");
  return out;
}

}  // namespace profpack::perf
