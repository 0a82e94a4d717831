// LLVM XRay trace reader: FDR versions 1-5 and basic ("naive") mode versions 1-3.
// See ../shared/specs/xray-versions-and-real-traces.md and lib/ir/profile.capnp (Trace) for
// what is kept. Parsing is one pass of pointer arithmetic over the bytes; records go straight
// into columns.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "error.h"
#include "formats/xray/xray.h"
#include "ir/column.h"
#include "util/bytes.h"
#include "util/pages.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "xray";

const char* kMetaNames[] = {"NewBuffer",     "EndOfBuffer", "NewCPUId",     "TSCWrap",
                            "WallClockTime", "CustomEvent", "CallArgument", "BufferExtents",
                            "TypedEvent",    "Pid"};

std::string hex8(uint8_t b) {
  const char* d = "0123456789abcdef";
  return std::string("0x") + d[b >> 4] + d[b & 15];
}

// A buffer as the IR stores it, and whether its first TSC has been seen yet.
struct BufInfo : XrayBuffer {
  bool haveTsc = false;
};

class FdrReader {
 public:
  FdrReader(std::span<const uint8_t> data, uint16_t version, uint64_t bufferSize, bool strict,
            std::vector<std::string>& warnings)
      : base_(data.data()),
        end_(data.data() + data.size()),
        version_(version),
        bufferSize_(bufferSize),
        strict_(strict),
        warnings_(warnings),
        tsc_(ir::Column::Encoding::ZIGZAG_DELTA),
        releaser_(data.data(), data.size()) {
    meta_.reserve(std::min<size_t>(data.size() / 64 + 64, size_t{1} << 20));
  }

  void run() {
    const uint8_t* p = base_ + 32;
    if (version_ == 1)
      runV1(p);
    else
      runExtents(p);
    releaser_.finish();
  }

  void build(ir::Trace::Builder t) {
    auto recs = t.initRecords();
    recs.setCount(count_);
    code_.build(recs.initCode());
    tsc_.build(recs.initTsc());
    recs.setMetaBytes(kj::ArrayPtr<const kj::byte>(meta_.data(), meta_.size()));
    std::vector<uint8_t>().swap(meta_);
    recs.setEventData(kj::ArrayPtr<const kj::byte>(events_.data(), events_.size()));
    std::vector<uint8_t>().swap(events_);
    auto bl = t.initBuffers(static_cast<unsigned>(bufs_.size()));
    for (size_t i = 0; i < bufs_.size(); ++i) {
      const BufInfo& b = bufs_[i];
      auto o = bl[static_cast<unsigned>(i)];
      o.setFileOffset(b.fileOffset);
      o.setFirstRecord(b.firstRecord);
      o.setRecordCount(b.recordCount);
      o.setThreadId(b.threadId);
      o.setPid(b.pid);
      o.setWallSeconds(b.wallSeconds);
      o.setWallSubSecond(b.wallSubSecond);
      o.setFirstTsc(b.firstTsc);
      if (!b.tail.empty()) o.setTail(kj::ArrayPtr<const kj::byte>(b.tail.data(), b.tail.size()));
    }
    // Buffers by (pid, thread), each thread's in time order.
    std::vector<uint32_t> order(bufs_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      const BufInfo& a = bufs_[x];
      const BufInfo& b = bufs_[y];
      if (a.pid != b.pid) return a.pid < b.pid;
      if (a.threadId != b.threadId) return a.threadId < b.threadId;
      if (a.wallSeconds != b.wallSeconds) return a.wallSeconds < b.wallSeconds;
      if (a.wallSubSecond != b.wallSubSecond) return a.wallSubSecond < b.wallSubSecond;
      return a.firstTsc < b.firstTsc;
    });
    auto to = t.initThreadOrder(static_cast<unsigned>(order.size()));
    for (size_t i = 0; i < order.size(); ++i) to.set(static_cast<unsigned>(i), order[i]);
    if (truncated_) {
      t.setTruncatedAt(static_cast<uint64_t>(truncatedAt_ - base_));
      t.setTrailingBytes(kj::ArrayPtr<const kj::byte>(truncatedAt_, end_ - truncatedAt_));
    }
  }

 private:
  uint64_t off(const uint8_t* p) const { return static_cast<uint64_t>(p - base_); }

  void startBuffer(const uint8_t* p) {
    if (!bufs_.empty()) bufs_.back().recordCount = count_ - bufs_.back().firstRecord;
    BufInfo b;
    b.fileOffset = off(p);
    b.firstRecord = count_;
    bufs_.push_back(b);
    base_tsc_ = 0;
    cpu_ = 0;
  }
  void finishBuffers() {
    if (!bufs_.empty()) bufs_.back().recordCount = count_ - bufs_.back().firstRecord;
  }

  void truncate(const uint8_t* p, const std::string& why) {
    std::string msg = "trace truncated: " + why;
    if (strict_) fail(kFmt, off(p), kUnknown, msg);
    warnings_.push_back("byte offset " + std::to_string(off(p)) + ": " + msg +
                        "; every complete record before it was loaded");
    truncated_ = true;
    truncatedAt_ = p;
  }

  void noteTsc(uint64_t tsc) {
    BufInfo& b = bufs_.back();
    if (!b.haveTsc) {
      b.haveTsc = true;
      b.firstTsc = tsc;
    }
  }

  // Parses one record at p (which is < limit). Returns the size consumed, or 0 if the record
  // does not fit before `limit` (partial). Sets `stop` for records that end the buffer scan.
  enum class Next { record, partial, endOfBuffer, newBuffer };
  Next record(const uint8_t*& p, const uint8_t* limit) {
    const uint8_t b = p[0];
    if (!(b & 1)) {
      if (limit - p < 8) return Next::partial;
      uint32_t w = rd32(p);
      if (((w >> 1) & 7) > 3)
        fail(kFmt, off(p), kUnknown,
             "unknown function record kind " + std::to_string((w >> 1) & 7) +
                 "; expected 0 (enter), 1 (exit), 2 (tail exit) or 3 (enter with arguments)");
      base_tsc_ += rd32(p + 4);
      code_.push(w);
      tsc_.push(base_tsc_);
      ++count_;
      if (!bufs_.back().haveTsc) noteTsc(base_tsc_);
      p += 8;
      return Next::record;
    }
    const unsigned kind = b >> 1;
    if (kind > 9)
      fail(kFmt, off(p), kUnknown,
           "unknown metadata record kind " + std::to_string(kind) + " (first byte " + hex8(b) +
               "); expected a kind from 0 to 9");
    if (kind == 7 && version_ >= 2) return Next::newBuffer;  // BufferExtents starts a buffer
    if (kind == 0 && version_ == 1) return Next::newBuffer;
    if (limit - p < 16) return Next::partial;
    const uint8_t* q = p + 1;
    uint64_t recTsc = base_tsc_;
    size_t extra = 0;
    switch (kind) {
      case 0:  // NewBuffer (v2+: after BufferExtents)
        bufs_.back().threadId = rd32(q);
        break;
      case 1:  // EndOfBuffer
        if (version_ >= 2)
          fail(kFmt, off(p), kUnknown,
               "EndOfBuffer record in a version " + std::to_string(version_) +
                   " trace (only version 1 uses it)");
        break;
      case 2:
        cpu_ = rd16(q);
        base_tsc_ = recTsc = rd64(q + 2);
        noteTsc(recTsc);
        break;
      case 3:
        base_tsc_ = recTsc = rd64(q);
        noteTsc(recTsc);
        break;
      case 4:
        bufs_.back().wallSeconds = rd64(q);
        bufs_.back().wallSubSecond = rd32(q + 8);
        break;
      case 5: {
        int32_t size = static_cast<int32_t>(rd32(q));
        if (size < 0)
          fail(kFmt, off(p) + 1, kUnknown,
               "custom event size " + std::to_string(size) + " is negative");
        extra = static_cast<size_t>(size);
        if (version_ >= 5) {
          base_tsc_ +=
              static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(rd32(q + 4))));
          recTsc = base_tsc_;
        } else {
          recTsc = rd64(q + 4);
        }
        break;
      }
      case 6:
      case 7:
      case 9: break;
      case 8: {
        int32_t size = static_cast<int32_t>(rd32(q));
        if (size < 0)
          fail(kFmt, off(p) + 1, kUnknown,
               "typed event size " + std::to_string(size) + " is negative");
        extra = static_cast<size_t>(size);
        base_tsc_ += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(rd32(q + 4))));
        recTsc = base_tsc_;
        break;
      }
    }
    if (kind == 9) bufs_.back().pid = rd32(q);
    if (static_cast<size_t>(limit - p - 16) < extra) return Next::partial;
    meta_.insert(meta_.end(), q, q + 15);
    if (extra) events_.insert(events_.end(), p + 16, p + 16 + extra);
    code_.push(b);
    tsc_.push(recTsc);
    ++count_;
    p += 16 + extra;
    return kind == 1 ? Next::endOfBuffer : Next::record;
  }

  // Version 2+: BufferExtents, then exactly `extents` bytes of records.
  void runExtents(const uint8_t* p) {
    while (p < end_) {
      releaser_.upTo(p);
      if (end_ - p < 16) {
        if (p[0] != 0x0f)
          fail(kFmt, off(p), kUnknown,
               "expected a BufferExtents record (first byte 0x0f), found " + hex8(p[0]));
        truncate(p, "the file ends inside a BufferExtents record");
        break;
      }
      if (p[0] != 0x0f)
        fail(kFmt, off(p), kUnknown,
             std::string("expected a BufferExtents record (first byte 0x0f) at the start of a "
                         "buffer, found ") +
                 hex8(p[0]));
      startBuffer(p);
      const uint64_t extents = rd64(p + 1);
      meta_.insert(meta_.end(), p + 1, p + 16);
      code_.push(p[0]);
      tsc_.push(base_tsc_);
      ++count_;
      const uint8_t* bufStart = p + 16;
      const bool clipped = extents > static_cast<uint64_t>(end_ - bufStart);
      const uint8_t* limit = clipped ? end_ : bufStart + extents;
      p = bufStart;
      while (p < limit) {
        Next n = record(p, limit);
        if (n == Next::record) continue;
        if (n == Next::newBuffer) {
          // A BufferExtents inside a buffer ends it early.
          limit = p;
          break;
        }
        if (n == Next::partial) {
          if (limit == end_) {
            truncate(p, "the file ends inside a " + recordName(p) + " record");
            finishBuffers();
            return;
          }
          std::string msg = "a " + recordName(p) +
                            " record crosses the end of the buffer that "
                            "BufferExtents declares (" +
                            std::to_string(extents) + " bytes)";
          if (strict_) fail(kFmt, off(p), kUnknown, msg);
          warnings_.push_back("byte offset " + std::to_string(off(p)) + ": " + msg +
                              "; its bytes are kept as the buffer's tail");
          bufs_.back().tail = {p, static_cast<size_t>(limit - p)};
          p = limit;
          break;
        }
        if (n == Next::endOfBuffer) continue;  // not reached: v2+ rejects EndOfBuffer
      }
      if (clipped && p == end_ && !truncated_)
        truncate(p, "the buffer at byte offset " + std::to_string(bufs_.back().fileOffset) +
                        " declares " + std::to_string(extents) + " bytes but only " +
                        std::to_string(end_ - bufStart) + " follow");
      p = std::max(p, limit);
    }
    finishBuffers();
  }

  // Version 1: NewBuffer ... EndOfBuffer, then garbage up to buffer_size.
  void runV1(const uint8_t* p) {
    while (p < end_) {
      releaser_.upTo(p);
      if (p[0] != 0x01)
        fail(kFmt, off(p), kUnknown,
             std::string("expected a NewBuffer record (first byte 0x01) at the start of a "
                         "buffer, found ") +
                 hex8(p[0]));
      if (end_ - p < 16) {
        truncate(p, "the file ends inside a NewBuffer record");
        break;
      }
      startBuffer(p);
      const uint8_t* bufStart = p;
      bufs_.back().threadId = rd32(p + 1);
      meta_.insert(meta_.end(), p + 1, p + 16);
      code_.push(p[0]);
      tsc_.push(base_tsc_);
      ++count_;
      p += 16;
      while (p < end_) {
        Next n = record(p, end_);
        if (n == Next::record) continue;
        if (n == Next::newBuffer) break;
        if (n == Next::partial) {
          truncate(p, "the file ends inside a " + recordName(p) + " record");
          finishBuffers();
          return;
        }
        // EndOfBuffer: the rest of the buffer up to buffer_size is garbage, unless the next
        // buffer follows at once.
        if (p < end_ && p[0] != 0x01) {
          uint64_t used = static_cast<uint64_t>(p - bufStart);
          if (bufferSize_ <= used)
            fail(kFmt, off(p), kUnknown,
                 "expected a NewBuffer record after EndOfBuffer (buffer size " +
                     std::to_string(bufferSize_) + " leaves nothing to skip), found " + hex8(p[0]));
          uint64_t skip = bufferSize_ - used;
          if (skip > static_cast<uint64_t>(end_ - p)) {
            bufs_.back().tail = {p, static_cast<size_t>(end_ - p)};
            p = end_;
            truncate(p, "the buffer at byte offset " + std::to_string(bufs_.back().fileOffset) +
                            " ends before the buffer size of " + std::to_string(bufferSize_) +
                            " bytes");
            finishBuffers();
            return;
          }
          bufs_.back().tail = {p, static_cast<size_t>(skip)};
          p += skip;
        }
        break;
      }
    }
    finishBuffers();
  }

  std::string recordName(const uint8_t* p) const {
    if (!(p[0] & 1)) return "function";
    return kMetaNames[p[0] >> 1];
  }

  const uint8_t* base_;
  const uint8_t* end_;
  uint16_t version_;
  uint64_t bufferSize_;
  bool strict_;
  std::vector<std::string>& warnings_;
  ColumnWriter code_;
  ColumnWriter tsc_;
  std::vector<uint8_t> meta_, events_;
  std::vector<BufInfo> bufs_;
  uint64_t count_ = 0;
  uint64_t base_tsc_ = 0;
  uint16_t cpu_ = 0;
  bool truncated_ = false;
  const uint8_t* truncatedAt_ = nullptr;
  PageReleaser releaser_;
};

void readBasic(std::span<const uint8_t> data, bool strict, ir::Trace::Builder t,
               std::vector<std::string>& warnings) {
  const uint8_t* p = data.data() + 32;
  const size_t n = (data.size() - 32) / 32;
  const size_t rest = (data.size() - 32) % 32;
  ColumnWriter code, tsc(ir::Column::Encoding::ZIGZAG_DELTA), fid, cpu,
      tid(ir::Column::Encoding::ZIGZAG_DELTA), pid(ir::Column::Encoding::ZIGZAG_DELTA), arg,
      padded(ir::Column::Encoding::ZIGZAG_DELTA);
  std::vector<uint8_t> padding;
  PageReleaser releaser(data.data(), data.size());
  static const uint8_t zeros[10] = {};
  for (size_t i = 0; i < n; ++i, p += 32) {
    if ((i & 0xffff) == 0) releaser.upTo(p);
    const uint64_t at = static_cast<uint64_t>(p - data.data());
    uint16_t type = rd16(p);
    if (type == 0) {
      uint8_t kind = p[3];
      if (kind > 3)
        fail(kFmt, at + 3, kUnknown,
             "unknown function record kind " + std::to_string(kind) +
                 " (expected 0 enter, 1 exit, 2 tail exit or 3 enter with arguments)");
      code.push(kind);
      cpu.push(p[2]);
      fid.push(rd32(p + 4));
      tsc.push(rd64(p + 8));
      tid.push(rd32(p + 16));
      pid.push(rd32(p + 20));
      if (std::memcmp(p + 24, zeros, 8) != 0) {
        padded.push(i);
        padding.insert(padding.end(), p + 24, p + 32);
      }
    } else if (type == 1) {
      code.push(0x100);
      fid.push(rd32(p + 4));
      tid.push(rd32(p + 8));
      pid.push(rd32(p + 12));
      arg.push(rd64(p + 16));
      if (std::memcmp(p + 2, zeros, 2) != 0 || std::memcmp(p + 24, zeros, 8) != 0) {
        padded.push(i);
        padding.insert(padding.end(), p + 2, p + 4);
        padding.insert(padding.end(), p + 24, p + 32);
      }
    } else {
      fail(kFmt, at, kUnknown,
           "unknown basic-mode record type " + std::to_string(type) +
               " (expected 0 function record or 1 argument record)");
    }
  }
  auto recs = t.initRecords();
  recs.setCount(n);
  code.build(recs.initCode());
  tsc.build(recs.initTsc());
  fid.build(recs.initFunctionId());
  cpu.build(recs.initCpu());
  tid.build(recs.initThreadId());
  pid.build(recs.initPid());
  arg.build(recs.initArgument());
  padded.build(recs.initPaddedRecords());
  recs.setPaddingBytes(kj::ArrayPtr<const kj::byte>(padding.data(), padding.size()));
  if (rest) {
    const uint64_t at = data.size() - rest;
    std::string msg = "trace truncated: the file ends inside a 32-byte record (" +
                      std::to_string(rest) + " bytes of it present)";
    if (strict) fail(kFmt, at, kUnknown, msg);
    warnings.push_back("byte offset " + std::to_string(at) + ": " + msg +
                       "; every complete record before it was loaded");
    t.setTruncatedAt(at);
    t.setTrailingBytes(kj::ArrayPtr<const kj::byte>(data.data() + at, rest));
  }
}

}  // namespace

std::unique_ptr<Profile> readXray(std::span<const uint8_t> data, bool strict) {
  if (data.size() < 32)
    fail(kFmt, data.size(), kUnknown,
         "file too short for the 32-byte XRay header (" + std::to_string(data.size()) + " bytes)");
  const uint8_t* h = data.data();
  const uint16_t version = rd16(h);
  const uint16_t type = rd16(h + 2);
  if (type > 1)
    fail(kFmt, 2, kUnknown,
         "unknown trace type " + std::to_string(type) + " (expected 0 basic or 1 FDR)");
  if (type == 1 && (version < 1 || version > 5))
    fail(kFmt, 0, kUnknown,
         "unsupported FDR version " + std::to_string(version) + " (expected 1 to 5)");
  if (type == 0 && (version < 1 || version > 3))
    fail(kFmt, 0, kUnknown,
         "unsupported basic-mode version " + std::to_string(version) + " (expected 1 to 3)");

  auto message = newMessage(data.size() / 2);
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::XRAY);
  root.setFormatVersion(std::to_string(version));
  auto t = root.initTrace();
  t.setMode(type == 1 ? ir::Trace::Mode::FDR : ir::Trace::Mode::BASIC);
  t.setVersion(version);
  t.setFlags(rd32(h + 4));
  t.setCycleFrequency(rd64(h + 8));
  t.setHeaderBytes(kj::ArrayPtr<const kj::byte>(h, 32));
  std::vector<std::string> warnings;
  if (type == 1) {
    t.setBufferSize(rd64(h + 16));
    FdrReader r(data, version, rd64(h + 16), strict, warnings);
    r.run();
    r.build(t);
  } else {
    readBasic(data, strict, t, warnings);
  }
  // An empty string table (index 0 only), as every profile has one.
  StringInterner strings;
  strings.build(root.initStrings());
  auto profile = std::make_unique<Profile>(std::move(message));
  profile->warnings() = std::move(warnings);
  return profile;
}

}  // namespace profpack

namespace profpack {

bool isXray(std::span<const uint8_t> data) {
  // A 32-byte header: u16 version, then u16 type 0 (basic) or 1 (FDR).
  if (data.size() < 32) return false;
  const uint16_t version = static_cast<uint16_t>(data[0] | data[1] << 8);
  const uint16_t type = static_cast<uint16_t>(data[2] | data[3] << 8);
  return version >= 1 && version < 256 && type <= 1;
}

}  // namespace profpack
