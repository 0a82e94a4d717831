#include "util/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

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

// Chunk `k` of `in`: kGzipChunk bytes, the last one shorter.
std::string_view chunkOf(std::string_view in, size_t k) {
  return in.substr(k * kGzipChunk, kGzipChunk);
}

// Chunk `k` of `in` as raw deflate blocks, primed with the window before it; all but the last
// chunk end on a byte boundary (sync flush) so that the chunks concatenate.
std::string deflateChunk(std::string_view in, size_t k, size_t chunks, int level) {
  const size_t from = k * kGzipChunk;
  const std::string_view chunk = chunkOf(in, k);
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    zlibFailed("cannot start deflate compression");
  struct End {
    z_stream* z;
    ~End() { deflateEnd(z); }
  } end{&z};
  if (from > 0) {
    const size_t dict = std::min(from, kWindow);
    if (deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(in.data() + from - dict),
                             static_cast<uInt>(dict)) != Z_OK)
      zlibFailed("cannot set a deflate dictionary");
  }
  std::string out(deflateBound(&z, chunk.size()) + 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
  z.avail_in = static_cast<uInt>(chunk.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const bool last = k + 1 == chunks;
  const int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  // A flush that filled the output may be unfinished: the bound leaves room, so that is a fault.
  if (last ? rc != Z_STREAM_END : (rc != Z_OK || z.avail_in != 0 || z.avail_out == 0))
    zlibFailed("deflate compression failed");
  out.resize(z.total_out);
  return out;
}

}  // namespace

std::string gzipCompress(std::string_view in, int level, unsigned threads) {
  const size_t chunks = (in.size() + kGzipChunk - 1) / kGzipChunk;
  if (chunks < 2) return gzipWhole(in, level);

  std::vector<std::string> parts(chunks);
  std::vector<uLong> crcs(chunks);
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (size_t k; !failed.load(std::memory_order_relaxed) && (k = next++) < chunks;) {
      try {
        parts[k] = deflateChunk(in, k, chunks, level);
        const std::string_view chunk = chunkOf(in, k);
        crcs[k] = crc32(0L, reinterpret_cast<const Bytef*>(chunk.data()),
                        static_cast<uInt>(chunk.size()));
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>({threads, chunks, 16}));
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // Fewer threads than asked for (a process limit, a sandbox): the same chunks, slower.
  }
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);

  // The member: zlib's header (no name, no time, "Unix"), the chunks, CRC-32 and size mod 2^32.
  const int xfl = level == 9 ? 2 : level == 1 ? 4 : 0;
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
  out.push_back(static_cast<char>(xfl));
  out.push_back('\x03');
  size_t total = out.size() + 8;
  for (const std::string& p : parts) total += p.size();
  out.reserve(total);
  uLong crc = crcs[0];
  for (size_t k = 0; k < chunks; ++k) {
    out += parts[k];
    std::string().swap(parts[k]);
    if (k > 0) crc = crc32_combine(crc, crcs[k], static_cast<z_off_t>(chunkOf(in, k).size()));
  }
  appendLe32(out, static_cast<uint32_t>(crc));
  appendLe32(out, static_cast<uint32_t>(in.size()));
  return out;
}

}  // namespace profpack
