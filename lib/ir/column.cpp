#include "ir/column.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "error.h"
#include "ir/adaptive.h"

namespace profpack {

namespace {
[[noreturn]] void corrupt(const std::string& what) { throw Error(Status::malformed, "ppk", what); }
}  // namespace

void ColumnWriter::flushChunk() {
  flushRun();
  chunkBytes_ += len_;
  buf_.trim(len_);  // no growth slack stays resident
  chunks_.push_back({std::move(buf_), len_});
  buf_ = Buffer();
  cap_ = 0;
  len_ = 0;
  inChunk_ = 0;
  prev_ = 0;
}

void ColumnWriter::grow() {
  buf_.grow(len_);
  cap_ = buf_.capacity();
}

void ColumnWriter::pushMany(const uint64_t* values, size_t n) {
  if (delta_)
    runs_ ? pushManyAs<true, true>(values, n) : pushManyAs<true, false>(values, n);
  else
    runs_ ? pushManyAs<false, true>(values, n) : pushManyAs<false, false>(values, n);
}

// The loop of push() with the writer's fields in locals: the byte stores below may alias any
// field, so going through `this` would reload them all after every byte.
template <bool kDelta, bool kRuns>
void ColumnWriter::pushManyAs(const uint64_t* values, size_t n) {
  while (n > 0) {
    if (inChunk_ == kColumnChunkValues) flushChunk();
    const size_t m = std::min<size_t>(n, kColumnChunkValues - inChunk_);
    uint8_t* buf = buf_.get();
    size_t len = len_, cap = cap_;
    uint64_t prev = prev_, runValue = runValue_;
    uint32_t run = run_;
    auto put = [&](uint64_t v) {
      if (cap - len < 10) [[unlikely]] {
        len_ = len;
        grow();
        buf = buf_.get();
        cap = cap_;
      }
      len = static_cast<size_t>(putVarint(buf + len, v) - buf);
    };
    for (size_t i = 0; i < m; ++i) {
      uint64_t v = values[i];
      if constexpr (kDelta) {
        const int64_t d = static_cast<int64_t>(v - prev);
        prev = v;
        v = (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
      }
      if constexpr (kRuns) {
        if (v == runValue && run - 1 < 14) {
          ++run;
          continue;
        }
        if (run != 0) {
          if (runValue < (uint64_t{1} << 60)) {
            put(runValue << 4 | (run - 1));
          } else {
            for (uint32_t j = 0; j < run; ++j) {
              put(15);
              put(runValue);
            }
          }
        }
        runValue = v;
        run = 1;
      } else {
        put(v);
      }
    }
    len_ = len;
    prev_ = prev;
    runValue_ = runValue;
    run_ = run;
    inChunk_ += static_cast<uint32_t>(m);
    count_ += m;
    values += m;
    n -= m;
  }
}

namespace {
constexpr size_t kMapBytes = size_t{1} << 17;  // buffers this large get pages of their own
size_t pageRound(size_t n) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}
}  // namespace

void ColumnWriter::Buffer::grow(size_t used) {
  size_t cap = std::max<size_t>(256, cap_ * 2);
  if (cap < kMapBytes) {
    void* p = std::realloc(p_, cap);
    if (!p) throw std::bad_alloc();
    p_ = static_cast<uint8_t*>(p);
  } else {
    cap = pageRound(cap);
#if defined(__SANITIZE_THREAD__)
    // ThreadSanitizer does not follow mremap: pages it moves keep the shadow of whatever was
    // at their new address before (another thread's column, unmapped since), reported as a
    // race. Under it, a new mapping and a copy, as the first mapping of a buffer is made.
    constexpr bool kRemap = false;
#else
    constexpr bool kRemap = true;
#endif
    void* p = mapped_ && kRemap
                  ? mremap(p_, cap_, cap, MREMAP_MAYMOVE)
                  : mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (mapped_ && !kRemap) {
      if (used) std::memcpy(p, p_, used);
      munmap(p_, cap_);
    } else if (!mapped_) {
      if (used) std::memcpy(p, p_, used);
      std::free(p_);
    }
    p_ = static_cast<uint8_t*>(p);
    mapped_ = true;
  }
  cap_ = cap;
}

void ColumnWriter::Buffer::trim(size_t used) {
  if (mapped_) {
    size_t keep = pageRound(std::max<size_t>(used, 1));
    if (keep < cap_ && munmap(p_ + keep, cap_ - keep) == 0) cap_ = keep;
  } else if (p_ && used < cap_) {
    if (void* p = std::realloc(p_, std::max<size_t>(used, 1))) {
      p_ = static_cast<uint8_t*>(p);
      cap_ = std::max<size_t>(used, 1);
    }
  }
}

void ColumnWriter::Buffer::release() {
  if (!p_) return;
  if (mapped_)
    munmap(p_, cap_);
  else
    std::free(p_);
  p_ = nullptr;
  cap_ = 0;
  mapped_ = false;
}

void ColumnWriter::build(ir::Column::Builder out) {
  if (inChunk_ > 0) flushChunk();
  buf_.release();
  cap_ = 0;
  if (encoding_ == ir::Column::Encoding::ADAPTIVE && count_ > kAdaptiveMaxValues)
    encoding_ = ir::Column::Encoding::VARINT;  // the varints collected so far, as they are
  out.setCount(count_);
  out.setEncoding(encoding_);
  out.setChunkValues(kColumnChunkValues);
  auto list = out.initChunks(static_cast<unsigned>(chunks_.size()));
  std::vector<uint64_t> values;
  std::vector<uint8_t> coded;
  for (size_t i = 0; i < chunks_.size(); ++i) {
    const uint8_t* data = chunks_[i].data.get();
    if (encoding_ == ir::Column::Encoding::ADAPTIVE) {
      values.clear();
      auto add = [&](uint64_t v) { values.push_back(v); };
      decodeChunk(data, data + chunks_[i].size, add);
      coded.clear();
      encodeAdaptive(values.data(), values.size(), coded);
      list.set(static_cast<unsigned>(i), kj::ArrayPtr<const kj::byte>(coded.data(), coded.size()));
    } else {
      list.set(static_cast<unsigned>(i), kj::ArrayPtr<const kj::byte>(data, chunks_[i].size));
    }
    chunks_[i].data.release();
  }
  chunks_.clear();
}

void encodeColumn(ir::Column::Builder out, std::span<const uint64_t> values,
                  ir::Column::Encoding encoding) {
  ColumnWriter w(encoding);
  for (uint64_t v : values) w.push(v);
  w.build(out);
}

std::vector<uint64_t> decodeColumn(ir::Column::Reader column) {
  ColumnCursor cursor(column);  // checks the declared count against the bytes before this
  std::vector<uint64_t> out(cursor.size());
  cursor.read(out.data(), out.size());
  cursor.finish();
  return out;
}

ColumnCursor::ColumnCursor(ir::Column::Reader column)
    : chunks_(column.getChunks()), count_(column.getCount()), per_(column.getChunkValues()) {
  const auto encoding = column.getEncoding();
  delta_ = encoding == ir::Column::Encoding::ZIGZAG_DELTA ||
           encoding == ir::Column::Encoding::ZIGZAG_DELTA_RUNS;
  runs_ = encoding == ir::Column::Encoding::VARINT_RUNS ||
          encoding == ir::Column::Encoding::ZIGZAG_DELTA_RUNS;
  adaptive_ = encoding == ir::Column::Encoding::ADAPTIVE;
  if (!delta_ && !runs_ && !adaptive_ && encoding != ir::Column::Encoding::VARINT)
    throw Error(Status::unsupported, "ppk", "column uses an unknown encoding");
  if (count_ > 0 && per_ == 0) corrupt("column has values but a chunk size of 0");
  if (adaptive_ && count_ > kAdaptiveMaxValues)  // writers never make one (see adaptive.h)
    corrupt("adaptive column of more than " + std::to_string(kAdaptiveMaxValues) + " values");
  uint64_t bytes = 0;
  for (auto c : chunks_) bytes += c.size();
  const uint64_t perByte = adaptive_ ? kAdaptiveValuesPerByte : runs_ ? 15 : 1;
  if (count_ / perByte > bytes || count_ > bytes * perByte)
    corrupt("column declares more values than it has bytes");
}

void ColumnCursor::nextChunk() {
  if (next_ == chunks_.size()) corrupt("column value count does not match its data");
  auto c = chunks_[next_++];
  p_ = c.begin();
  e_ = c.end();
  prev_ = 0;
  inChunk_ = 0;
  if (adaptive_) {
    // Range-code the chunk's values back into varints, then read those as a VARINT chunk.
    const uint64_t n = std::min<uint64_t>(per_, count_ - std::min(count_, chunkStart_));
    if (n > c.size() * kAdaptiveValuesPerByte)
      corrupt("adaptive column chunk declares more values than it has bytes");
    chunkStart_ += n;
    plain_.clear();
    if (!decodeAdaptiveAsVarints(c.begin(), c.end(), n, plain_))
      corrupt("adaptive column chunk ends before its values do");
    p_ = plain_.data();
    e_ = plain_.data() + plain_.size();
  }
}

template <bool kDelta, bool kRuns>
void ColumnCursor::readAs(uint64_t* out, size_t n) {
  // The state lives in locals for the loop: stores through `out` could otherwise alias the
  // members and force a reload of each one per value.
  const uint8_t *p = p_, *e = e_;
  uint64_t prev = prev_, inChunk = inChunk_;
  const uint64_t per = per_;
  auto emit = [&](uint64_t v, uint64_t k) {  // k copies of a value (or steps of a delta)
    for (uint64_t i = 0; i < k; ++i) {
      if constexpr (kDelta) {
        prev += v;
        out[i] = prev;
      } else {
        out[i] = v;
      }
    }
    out += k;
    n -= k;
  };
  if (runLeft_ > 0) {  // the rest of a run that the previous call stopped in
    const uint64_t k = std::min<uint64_t>(runLeft_, n);
    emit(runValue_, k);
    runLeft_ -= k;
  }
  auto varint = [&]() -> uint64_t {
    uint8_t b = *p++;
    if (b < 0x80) return b;
    uint64_t v = b & 0x7f;
    for (unsigned shift = 7;; shift += 7) {
      if (p == e || shift > 63) corrupt("truncated or overlong varint in column");
      b = *p++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (n > 0) {
    if (p == e) [[unlikely]] {
      p_ = p;
      nextChunk();
      p = p_;
      e = e_;
      prev = 0;
      inChunk = 0;
      continue;
    }
    uint64_t v = varint();
    uint64_t run = 1;
    if constexpr (kRuns) {
      if ((v & 15) == 15) [[unlikely]] {
        if (p == e) corrupt("truncated run in column");
        v = varint();
      } else {
        run = (v & 15) + 1;
        v >>= 4;
      }
    }
    inChunk += run;
    if (inChunk > per) [[unlikely]]
      corrupt("column chunk holds more values than its chunk size");
    if constexpr (kDelta)
      v = static_cast<uint64_t>(static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)));
    if (run == 1) {
      if constexpr (kDelta) v = prev += v;
      *out++ = v;
      --n;
    } else if (n >= 16) {  // room for 16: a fixed-length fill, then keep `run` of them
      if constexpr (kDelta) {
#pragma GCC unroll 16
        for (uint64_t i = 0; i < 16; ++i) out[i] = prev + v * (i + 1);
      } else {
        typedef uint64_t Pair __attribute__((vector_size(16)));
        const Pair two = {v, v};
#pragma GCC unroll 8
        for (int i = 0; i < 16; i += 2) std::memcpy(out + i, &two, sizeof two);
      }
      if constexpr (kDelta) prev += v * run;
      out += run;
      n -= run;
    } else if (run <= n) {
      emit(v, run);
    } else {  // the run goes on past this call
      runValue_ = v;
      runLeft_ = run - n;
      emit(v, n);
    }
  }
  p_ = p;
  prev_ = prev;
  inChunk_ = inChunk;
}

void ColumnCursor::read(uint64_t* out, size_t n) {
  if (n > count_ - done_) corrupt("column holds fewer values than were asked of it");
  done_ += n;
  if (delta_)
    runs_ ? readAs<true, true>(out, n) : readAs<true, false>(out, n);
  else
    runs_ ? readAs<false, true>(out, n) : readAs<false, false>(out, n);
}

void ColumnCursor::finish() {
  if (done_ != count_) corrupt("column value count does not match its data");
  if (runLeft_ > 0 || p_ != e_) corrupt("column holds more values than it declares");
  for (; next_ < chunks_.size(); ++next_)
    if (chunks_[next_].size() > 0) corrupt("column holds more values than it declares");
}

StringInterner::StringInterner() {
  strings_.emplace_back();
  hashes_.push_back(0);
  rebuildIndex(1024);
}

void StringInterner::rebuildIndex(size_t slots) {
  slots_.assign(slots, 0);
  const size_t mask = slots - 1;
  for (uint64_t i = 1; i < strings_.size(); ++i) {
    size_t at = hashes_[i] & mask;
    while (slots_[at] != 0) at = (at + 1) & mask;
    slots_[at] = i;
  }
}

uint64_t StringInterner::intern(std::string_view s) {
  if (indexStale_) {
    hashes_.resize(strings_.size());
    for (uint64_t i = 1; i < strings_.size(); ++i)
      hashes_[i] = std::hash<std::string_view>()(strings_[i]);
    size_t n = 1024;
    while (n < 2 * strings_.size()) n *= 2;
    rebuildIndex(n);
    indexStale_ = false;
  }
  const uint64_t h = std::hash<std::string_view>()(s);
  const size_t mask = slots_.size() - 1;
  size_t at = h & mask;
  for (uint64_t i; (i = slots_[at]) != 0; at = (at + 1) & mask)
    if (hashes_[i] == h && strings_[i] == s) return i;
  const uint64_t id = strings_.size();
  strings_.emplace_back(s);
  hashes_.push_back(h);
  slots_[at] = id;
  if (2 * strings_.size() > slots_.size()) rebuildIndex(2 * slots_.size());
  return id;
}

std::vector<uint64_t> StringInterner::sortAndCompact(const std::vector<bool>& used) {
  // Sorted by a key of the first 8 bytes (big-endian, so integer order is byte order) and the
  // whole string only on a tie: most compares then touch neither the deque nor the strings.
  struct Entry {
    uint64_t key;
    std::string_view s;
    uint64_t index;
  };
  std::vector<Entry> order;
  for (uint64_t i = 1; i < strings_.size(); ++i) {
    if (i >= used.size() || !used[i]) continue;
    const std::string& s = strings_[i];
    uint64_t key = 0;
    for (size_t b = 0; b < 8; ++b)
      key = key << 8 | (b < s.size() ? static_cast<unsigned char>(s[b]) : 0);
    order.push_back({key, s, i});
  }
  std::sort(order.begin(), order.end(), [](const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.s < b.s;
  });
  std::vector<uint64_t> remap(strings_.size(), 0);
  std::deque<std::string> sorted;
  sorted.emplace_back();
  for (const Entry& e : order) {
    remap[e.index] = sorted.size();
    sorted.push_back(std::move(strings_[e.index]));
  }
  strings_ = std::move(sorted);
  hashes_.clear();
  slots_.clear();
  indexStale_ = true;
  return remap;
}

void StringInterner::build(ir::StringTable::Builder out) const {
  constexpr size_t kChunkBytes = size_t{64} << 20;
  ColumnWriter lengths;
  std::vector<std::string> chunks(1);
  for (const std::string& s : strings_) {
    lengths.push(s.size());
    // A string never straddles two chunks; one longer than a chunk gets a chunk of its own.
    if (!chunks.back().empty() && chunks.back().size() + s.size() > kChunkBytes)
      chunks.emplace_back();
    chunks.back() += s;
  }
  lengths.build(out.initLengths());
  auto data = out.initData(static_cast<unsigned>(chunks.size()));
  for (size_t i = 0; i < chunks.size(); ++i)
    data.set(static_cast<unsigned>(i),
             kj::ArrayPtr<const kj::byte>(reinterpret_cast<const kj::byte*>(chunks[i].data()),
                                          chunks[i].size()));
}

StringTableReader::StringTableReader(ir::StringTable::Reader table) {
  std::vector<uint64_t> lengths = decodeColumn(table.getLengths());
  uint64_t total = 0;
  for (auto d : table.getData()) {
    chunkStart_.push_back(total);
    chunks_.emplace_back(reinterpret_cast<const char*>(d.begin()), d.size());
    total += d.size();
  }
  offsets_.reserve(lengths.size() + 1);
  uint64_t off = 0;
  size_t chunk = 0;
  for (uint64_t len : lengths) {
    if (len > total - off) corrupt("string table lengths exceed its data");
    // Strings do not straddle chunks: move to the chunk that holds this one's first byte.
    while (len > 0 && chunk + 1 < chunks_.size() && off >= chunkStart_[chunk + 1]) ++chunk;
    if (len > 0 && off + len > chunkStart_[chunk] + chunks_[chunk].size())
      corrupt("string straddles two string table chunks");
    offsets_.push_back(off);
    off += len;
  }
  offsets_.push_back(off);
  if (lengths.empty()) offsets_.clear();
}

std::string_view StringTableReader::get(uint64_t id) const {
  if (id >= size()) corrupt("string index " + std::to_string(id) + " out of range");
  uint64_t off = offsets_[id];
  uint64_t len = offsets_[id + 1] - off;
  if (len == 0) return {};
  size_t chunk =
      std::upper_bound(chunkStart_.begin(), chunkStart_.end(), off) - chunkStart_.begin() - 1;
  return chunks_[chunk].substr(off - chunkStart_[chunk], len);
}

}  // namespace profpack
