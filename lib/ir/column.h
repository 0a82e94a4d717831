// Chunked, varint-coded integer columns and the interned string table of the IR.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile.capnp.h"

namespace profpack {

// Values per chunk of a Column: small enough that a chunk's encoded bytes (at most 10 bytes a
// value) stay far below Cap'n Proto's list and segment limits.
inline constexpr uint32_t kColumnChunkValues = 1u << 20;

// Writes v as an unsigned LEB128 varint at p (at most 10 bytes) and returns the end.
[[gnu::always_inline]] inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Accumulates values and encodes them chunk by chunk as they arrive.
class ColumnWriter {
 public:
  // ADAPTIVE columns collect varints like VARINT ones and are range-coded by build(), if they
  // hold at most kAdaptiveMaxValues values (else they stay VARINT).
  explicit ColumnWriter(ir::Column::Encoding encoding = ir::Column::Encoding::VARINT)
      : encoding_(encoding),
        delta_(encoding == ir::Column::Encoding::ZIGZAG_DELTA ||
               encoding == ir::Column::Encoding::ZIGZAG_DELTA_RUNS),
        runs_(encoding == ir::Column::Encoding::VARINT_RUNS ||
              encoding == ir::Column::Encoding::ZIGZAG_DELTA_RUNS) {}

  [[gnu::always_inline]] void push(uint64_t value) {
    if (inChunk_ == kColumnChunkValues) [[unlikely]]
      flushChunk();
    uint64_t v = value;
    if (delta_) {
      int64_t d = static_cast<int64_t>(value - prev_);
      prev_ = value;
      v = (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
    }
    ++inChunk_;
    ++count_;
    if (runs_) {
      if (v == runValue_ && run_ - 1 < 14) {  // a run of 1..14 grows; run_ == 0 wraps around
        ++run_;
        return;
      }
      flushRun();
      runValue_ = v;
      run_ = 1;
      return;
    }
    put(v);
  }
  // push() of n values in a row, with the encoding's state kept in registers: the same bytes,
  // several times faster for the long batches of the cost-table builders.
  void pushMany(const uint64_t* values, size_t n);
  // Calls f(value) for every value pushed so far, in order (plain encodings only).
  template <class F>
  void forEach(F f) const {
    for (auto& c : chunks_) decodeChunk(c.data.get(), c.data.get() + c.size, f);
    decodeChunk(buf_.get(), buf_.get() + len_, f);
  }
  uint64_t size() const { return count_; }
  // Encoded bytes so far (to size a message from its content, not from its input).
  uint64_t bytes() const { return chunkBytes_ + len_; }
  // Writes the column into `out`. The writer may not be used afterwards.
  void build(ir::Column::Builder out);
  // Gives back the growth slack of the chunk being filled, for a writer kept a long time
  // before build() (values may still be pushed).
  void shrink() {
    buf_.trim(len_);
    cap_ = buf_.capacity();
  }

 private:
  void flushChunk();
  void grow();
  template <bool kDelta, bool kRuns>
  void pushManyAs(const uint64_t* values, size_t n);
  [[gnu::always_inline]] void put(uint64_t v) {
    if (cap_ - len_ < 10) [[unlikely]]
      grow();
    len_ = static_cast<size_t>(putVarint(buf_.get() + len_, v) - buf_.get());
  }
  void flushRun() {
    if (run_ == 0) return;
    if (runValue_ < (uint64_t{1} << 60)) {
      put(runValue_ << 4 | (run_ - 1));
    } else {
      for (uint32_t i = 0; i < run_; ++i) {
        put(15);
        put(runValue_);
      }
    }
    run_ = 0;
  }
  template <class F>
  void decodeChunk(const uint8_t* p, const uint8_t* e, F& f) const {
    uint64_t prev = 0;
    while (p < e) {
      uint64_t v = 0;
      unsigned shift = 0;
      for (;;) {
        uint8_t b = *p++;
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
      }
      if (delta_) {
        prev += static_cast<uint64_t>(static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)));
        v = prev;
      }
      f(v);
    }
  }
  ir::Column::Encoding encoding_;
  bool delta_, runs_;
  uint64_t runValue_ = 0;
  uint32_t run_ = 0;  // values in the pending run (runs encodings)
  uint64_t prev_ = 0;
  uint64_t count_ = 0;
  uint32_t inChunk_ = 0;
  uint64_t chunkBytes_ = 0;
  // Bytes of a chunk. Large buffers are mapped pages of their own, so a freed chunk goes back
  // to the system at once (heap memory would stay resident while the message is built).
  class Buffer {
   public:
    Buffer() = default;
    Buffer(Buffer&& o) noexcept : p_(o.p_), cap_(o.cap_), mapped_(o.mapped_) { o.p_ = nullptr; }
    Buffer& operator=(Buffer&& o) noexcept {
      std::swap(p_, o.p_);
      std::swap(cap_, o.cap_);
      std::swap(mapped_, o.mapped_);
      return *this;
    }
    ~Buffer() { release(); }
    uint8_t* get() const { return p_; }
    size_t capacity() const { return cap_; }
    void grow(size_t used);  // at least doubles the capacity, keeping `used` bytes
    void trim(size_t used);  // gives back the capacity beyond `used` bytes
    void release();

   private:
    uint8_t* p_ = nullptr;
    size_t cap_ = 0;
    bool mapped_ = false;
  };
  Buffer buf_;  // the chunk being filled
  size_t len_ = 0, cap_ = 0;
  struct Chunk {
    Buffer data;
    size_t size;
  };
  std::vector<Chunk> chunks_;
};

// Decodes a whole column. Throws profpack::Error on a malformed column (count mismatch,
// truncated varint), so a corrupt .ppk can never index out of bounds later.
std::vector<uint64_t> decodeColumn(ir::Column::Reader column);

// Decodes a column a batch at a time, with the checks of decodeColumn: for passes over long
// columns that need only a window of their values in memory (a decoded 10-million-row column
// is 80 MB of page faults; a window of a few thousand stays in cache).
class ColumnCursor {
 public:
  // Throws like decodeColumn on an unknown encoding or a count its bytes cannot hold.
  explicit ColumnCursor(ir::Column::Reader column);
  uint64_t size() const { return count_; }  // values the column declares
  uint64_t remaining() const { return count_ - done_; }
  // Decodes the next n values into out[0, n). Throws Status::malformed if fewer remain or the
  // data is truncated.
  void read(uint64_t* out, size_t n);
  uint64_t next() {
    uint64_t v;
    read(&v, 1);
    return v;
  }
  // Throws unless every declared value was read and the data holds no more.
  void finish();

 private:
  template <bool kDelta, bool kRuns>
  void readAs(uint64_t* out, size_t n);
  void nextChunk();
  capnp::List<capnp::Data>::Reader chunks_;
  bool adaptive_ = false;
  uint64_t chunkStart_ = 0;     // adaptive: values in the chunks before the current one
  std::vector<uint8_t> plain_;  // adaptive: the current chunk's values as varints
  uint64_t count_ = 0, done_ = 0;
  uint32_t per_ = 0;
  bool delta_ = false, runs_ = false;
  unsigned next_ = 0;  // index of the next chunk
  const uint8_t *p_ = nullptr, *e_ = nullptr;
  uint64_t prev_ = 0, inChunk_ = 0;
  uint64_t runValue_ = 0, runLeft_ = 0;  // pending copies of a run (a delta when delta_)
};

// Convenience: encode a vector into a column.
void encodeColumn(ir::Column::Builder out, std::span<const uint64_t> values,
                  ir::Column::Encoding encoding = ir::Column::Encoding::VARINT);

// Interns strings while a reader parses; index 0 is the reserved "none".
class StringInterner {
 public:
  StringInterner();
  uint64_t intern(std::string_view s);
  uint64_t size() const { return strings_.size(); }
  std::string_view get(uint64_t id) const { return strings_[id]; }
  // Sorts the strings bytewise (index 0 stays "none"), keeps only those with used[i] set, and
  // returns the old -> new index map (unused strings map to 0). Sorting makes the IR
  // independent of the order names were first seen and helps compression.
  std::vector<uint64_t> sortAndCompact(const std::vector<bool>& used);
  void build(ir::StringTable::Builder out) const;

 private:
  void rebuildIndex(size_t slots);
  std::deque<std::string> strings_;
  // Open addressing over the strings: slot = string index (0 = empty), with each string's hash
  // by index. Rebuilt on the next intern() after sortAndCompact (most readers intern no more).
  std::vector<uint64_t> slots_, hashes_;
  bool indexStale_ = false;
};

// Random access to a stored string table.
class StringTableReader {
 public:
  StringTableReader() = default;
  explicit StringTableReader(ir::StringTable::Reader table);
  uint64_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  std::string_view get(uint64_t id) const;  // throws on an out-of-range id

 private:
  std::vector<std::string_view> chunks_;
  std::vector<uint64_t> offsets_;     // global byte offset of each string; size()+1 entries
  std::vector<uint64_t> chunkStart_;  // global byte offset of each chunk
};

}  // namespace profpack
