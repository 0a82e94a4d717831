#include "util/gzip.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <system_error>

#include "error.h"
#include "util/bytes.h"

namespace profpack {

namespace {

[[noreturn]] void deflateFailed(const char* what) {
  throw Error(Status::internal, "", std::string("gzip: ") + what);
}

struct CompressorFree {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

// The raw deflate stream of `in`, its last block final, with room for `room` bytes more. It is
// made in a buffer left uninitialized, of the bound (the input's size and more), and kept at
// its size: a stream keeps every chunk's blocks until finish(), and they are a third of the
// chunk or less.
std::string deflateRaw(std::string_view in, int level, size_t room) {
  std::unique_ptr<libdeflate_compressor, CompressorFree> c(libdeflate_alloc_compressor(level));
  if (!c) deflateFailed("cannot start deflate compression");
  const size_t bound = libdeflate_deflate_compress_bound(c.get(), in.size());
  std::unique_ptr<char[]> buffer(new char[bound]);
  const size_t n = libdeflate_deflate_compress(c.get(), in.data(), in.size(), buffer.get(), bound);
  if (n == 0) deflateFailed("deflate compression failed");
  std::string out;
  out.reserve(n + room);
  out.assign(buffer.get(), n);
  return out;
}

// zlib's header (no name, no time, "Unix"), with the extra flags zlib gives the level.
void gzipHeader(std::string& out, int level) {
  out.assign("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
  out.push_back(static_cast<char>(level == 9 ? 2 : level == 1 ? 4 : 0));
  out.push_back('\x03');
}

// One deflate stream of the whole input, as a gzip member.
std::string gzipWhole(std::string_view in, int level) {
  const std::string deflated = deflateRaw(in, level, 0);
  std::string out;
  gzipHeader(out, level);
  out.reserve(out.size() + deflated.size() + 8);
  out += deflated;
  appendLe32(out, libdeflate_crc32(0, in.data(), in.size()));
  appendLe32(out, static_cast<uint32_t>(in.size()));
  return out;
}

// Makes the complete raw deflate stream `d` of `size` bytes of data one that more blocks may
// follow: its final block's BFINAL bit cleared, then an empty stored block (a sync flush's
// 00 00 FF FF) to end it on a byte boundary. libdeflate neither flushes nor says where its
// blocks start, so zlib's inflate finds them (Z_BLOCK stops after each block, with the bits of
// its last byte left unused): about half the cost of compressing at level 1.
void endNotFinal(std::string& d, size_t size) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) deflateFailed("cannot start checking deflate blocks");
  struct End {
    z_stream* z;
    ~End() { inflateEnd(z); }
  } end{&z};
  std::unique_ptr<Bytef[]> scratch(new Bytef[size + 1]);  // written, never read
  z.next_in = reinterpret_cast<Bytef*>(d.data());
  z.avail_in = static_cast<uInt>(d.size());
  uint64_t lastStart = 0, streamEnd = 0;  // bit positions
  bool ended = false;
  for (;;) {
    z.next_out = scratch.get();
    z.avail_out = static_cast<uInt>(size + 1);
    const int rc = inflate(&z, Z_BLOCK);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK) deflateFailed("deflate blocks do not inflate");
    if ((z.data_type & 128) == 0) continue;
    const uint64_t at = uint64_t{z.total_in} * 8 - static_cast<unsigned>(z.data_type & 7);
    if (z.data_type & 64) {  // past the final block's end
      streamEnd = at;
      ended = true;
    } else {
      lastStart = at;  // where the next block starts, until the final one is found
    }
  }
  if (!ended || z.total_out != size || (streamEnd + 7) / 8 != d.size())
    deflateFailed("deflate blocks inflate to another size");
  d[lastStart / 8] = static_cast<char>(d[lastStart / 8] & ~(1u << (lastStart % 8)));
  const unsigned used = streamEnd % 8;  // bits of the last byte the stream uses; 0: all
  if (used != 0) d.back() = static_cast<char>(d.back() & ((1u << used) - 1));
  // A stored block's three header bits fit in the last byte's unused ones, else in one more.
  if (used == 0 || used > 5) d.push_back('\0');
  d.append("\x00\x00\xff\xff", 4);
}

// `chunk` as raw deflate blocks, on its own (no window of the data before it); all but the
// last chunk end on a byte boundary, not final, so that the chunks concatenate.
std::string deflateChunk(std::string_view chunk, bool last, int level) {
  std::string out = deflateRaw(chunk, level, 5);
  if (!last) endNotFinal(out, chunk.size());
  return out;
}

}  // namespace

GzipStream::GzipStream(int level, unsigned threads) : level_(level), threads_(threads) {
  if (threads_ == 0) threads_ = std::max(1u, std::thread::hardware_concurrency());
  threads_ = std::min(threads_, 16u);
}

GzipStream::~GzipStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : pool_) t.join();
}

void GzipStream::append(std::string_view data) {
  size_ += data.size();
  while (!data.empty()) {
    if (chunks_.empty() || chunks_.back()->data.size() == kGzipChunk) {
      // A full chunk followed by more data is not the last: it can be compressed now.
      if (!chunks_.empty()) {
        queue(chunks_.size() - 1);
        // Where the helpers fall behind, this thread takes the oldest waiting chunks: their
        // data waits in memory (3 MB of a 50 MB gperftools profile's peak as pprof).
        for (size_t k; backlog() > kMaxBacklog && takeQueued(k, /*wait=*/false);)
          compress(k, false);
      }
      auto next = std::make_unique<Chunk>();
      next->data.reserve(std::min(kGzipChunk, data.size()));
      std::lock_guard<std::mutex> lock(mutex_);
      chunks_.push_back(std::move(next));
    }
    std::string& to = chunks_.back()->data;
    const size_t n = std::min(kGzipChunk - to.size(), data.size());
    if (to.capacity() < to.size() + n) to.reserve(kGzipChunk);
    to.append(data.substr(0, n));
    data.remove_prefix(n);
  }
}

void GzipStream::queue(size_t k) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.push_back(k);
  }
  // The first full chunk starts the helpers (a small stream never starts one).
  if (pool_.empty() && threads_ > 1) {
    try {
      for (unsigned t = 1; t < threads_; ++t) pool_.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      // Fewer or no helpers (a process limit, a sandbox): finish() compresses the rest.
    }
    threads_ = static_cast<unsigned>(pool_.size()) + 1;  // never try again
  }
  ready_.notify_one();
}

size_t GzipStream::backlog() {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_.size();
}

bool GzipStream::takeQueued(size_t& k, bool wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wait) ready_.wait(lock, [&] { return stop_ || !queued_.empty(); });
  if (queued_.empty() || error_) return false;
  k = queued_.front();
  queued_.erase(queued_.begin());
  return true;
}

void GzipStream::compress(size_t k, bool last) {
  Chunk* chunk;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    chunk = chunks_[k].get();
  }
  try {
    std::string deflated = deflateChunk(chunk->data, last, level_);
    const uint32_t crc = libdeflate_crc32(0, chunk->data.data(), chunk->data.size());
    std::lock_guard<std::mutex> lock(mutex_);
    chunk->deflated = std::move(deflated);
    chunk->crc = crc;
    chunk->bytes = chunk->data.size();
    chunk->done = true;
    // No other chunk refers back into this one: only its size is needed now.
    std::string().swap(chunk->data);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

void GzipStream::work() {
  for (size_t k; takeQueued(k, /*wait=*/true);) compress(k, false);
}

std::string GzipStream::finish() {
  if (chunks_.size() < 2) return gzipWhole(chunks_.empty() ? "" : chunks_[0]->data, level_);
  // The calling thread takes what no helper has yet, the last chunk included, then waits for
  // the helpers to finish theirs.
  for (size_t k; takeQueued(k, /*wait=*/false);) compress(k, false);
  compress(chunks_.size() - 1, true);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : pool_) t.join();
  pool_.clear();
  if (error_) std::rethrow_exception(error_);

  // The member: the header, the chunks, CRC-32 and size mod 2^32.
  std::string out;
  gzipHeader(out, level_);
  size_t total = out.size() + 8;
  for (const auto& c : chunks_) total += c->deflated.size();
  out.reserve(total);
  uLong crc = chunks_[0]->crc;
  for (size_t k = 0; k < chunks_.size(); ++k) {
    out += chunks_[k]->deflated;
    if (k > 0) crc = crc32_combine(crc, chunks_[k]->crc, static_cast<z_off_t>(chunks_[k]->bytes));
    chunks_[k].reset();
  }
  appendLe32(out, static_cast<uint32_t>(crc));
  appendLe32(out, static_cast<uint32_t>(size_));
  return out;
}

std::string gzipCompress(std::string_view in, int level, unsigned threads) {
  GzipStream gz(level, threads);
  gz.append(in);
  return gz.finish();
}

}  // namespace profpack
