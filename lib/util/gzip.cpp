#include "util/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <system_error>

#include "error.h"
#include "util/bytes.h"

namespace profpack {

namespace {

constexpr size_t kWindow = 32768;  // deflate's window: what a chunk may refer back to

[[noreturn]] void zlibFailed(const char* what) {
  throw Error(Status::internal, "", std::string("zlib: ") + what);
}

// One deflate stream of the whole input, with zlib's own gzip wrapper.
std::string gzipWhole(std::string_view in, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    zlibFailed("cannot start gzip compression");
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) zlibFailed("gzip compression failed");
  return out;
}

// `chunk` as raw deflate blocks, primed with `window` (the bytes just before it); all but the
// last chunk end on a byte boundary (sync flush) so that the chunks concatenate.
std::string deflateChunk(std::string_view chunk, std::string_view window, bool last, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    zlibFailed("cannot start deflate compression");
  struct End {
    z_stream* z;
    ~End() { deflateEnd(z); }
  } end{&z};
  if (!window.empty() && deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(window.data()),
                                              static_cast<uInt>(window.size())) != Z_OK)
    zlibFailed("cannot set a deflate dictionary");
  std::string out(deflateBound(&z, chunk.size()) + 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
  z.avail_in = static_cast<uInt>(chunk.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  // A flush that filled the output may be unfinished: the bound leaves room, so that is a fault.
  if (last ? rc != Z_STREAM_END : (rc != Z_OK || z.avail_in != 0 || z.avail_out == 0))
    zlibFailed("deflate compression failed");
  out.resize(z.total_out);
  // The bound is about the chunk's size, and the blocks are a third of it or less: a stream
  // keeps every chunk's blocks until finish(), so they are kept at their size.
  out.shrink_to_fit();
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
  const Chunk* before;
  Chunk* chunk;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    chunk = chunks_[k].get();
    before = k > 0 ? chunks_[k - 1].get() : nullptr;
  }
  try {
    std::string_view window;
    if (before) window = std::string_view(before->data).substr(kGzipChunk - kWindow);
    std::string deflated = deflateChunk(chunk->data, window, last, level_);
    const unsigned long crc = crc32(0L, reinterpret_cast<const Bytef*>(chunk->data.data()),
                                    static_cast<uInt>(chunk->data.size()));
    std::lock_guard<std::mutex> lock(mutex_);
    chunk->deflated = std::move(deflated);
    chunk->crc = crc;
    chunk->bytes = chunk->data.size();
    chunk->done = true;
    // A chunk's data is needed until it and the chunk after it (whose window it is) are
    // compressed; then only its size is.
    auto release = [&](size_t i) {
      if (i + 1 < chunks_.size() && chunks_[i]->done && chunks_[i + 1]->done)
        std::string().swap(chunks_[i]->data);
    };
    if (k > 0) release(k - 1);
    release(k);
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

  // The member: zlib's header (no name, no time, "Unix"), the chunks, CRC-32 and size mod 2^32.
  const int xfl = level_ == 9 ? 2 : level_ == 1 ? 4 : 0;
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
  out.push_back(static_cast<char>(xfl));
  out.push_back('\x03');
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
