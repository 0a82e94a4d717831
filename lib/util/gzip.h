// gzip (RFC 1952) compression with libdeflate, in chunks compressed side by side.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace profpack {

// 256 KiB: a chunk compressed on its own loses the matches a window of the chunk before would
// give. A gperftools profile's 5 MB profile.proto came out 0.4% larger than as one stream
// (64 KiB chunks: 1.7%).
inline constexpr size_t kGzipChunk = size_t{256} << 10;

// A gzip member of data given piece by piece, at libdeflate level `level` (1..12; 1..9 are
// about zlib's). Data of at least two chunks (kGzipChunk bytes each, the last one shorter) is
// cut into chunks compressed on up to `threads` threads (0: one per core), as pigz does: each
// chunk is a run of raw deflate blocks compressed on its own, all but the last made not final
// and ended on a byte boundary by an empty stored block, and the CRC-32s are combined. A chunk
// is compressed on a helper thread as soon as data past it arrives, so compressing overlaps
// with producing the data. The output depends on the data and level only, never on the pieces
// or the number of threads. Throws Error(internal) if compression fails. Helper threads are
// started only once a chunk is full; where none can be started, the calling thread compresses
// every chunk in finish().
class GzipStream {
 public:
  explicit GzipStream(int level, unsigned threads = 0);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  void append(std::string_view data);
  // The member; the stream takes no more data.
  std::string finish();

 private:
  struct Chunk {
    // kGzipChunk bytes once full; never changed once queued, but emptied once compressed
    std::string data;
    size_t bytes = 0;       // data's size, kept
    std::string deflated;   // raw deflate blocks, once compressed
    unsigned long crc = 0;  // CRC-32 of data, once compressed
    bool done = false;      // compressed (under mutex_)
  };
  void queue(size_t k);  // chunk k is complete and not the last: a helper may take it
  void work();           // compresses queued chunks until told to stop
  void compress(size_t k, bool last);
  bool takeQueued(size_t& k, bool wait);
  size_t backlog();  // chunks queued and not yet taken
  // 512 KiB of data waiting at most, as 8 chunks of 64 KiB were before chunks grew to 256 KiB.
  static constexpr size_t kMaxBacklog = 2;

  const int level_;
  unsigned threads_;
  std::vector<std::unique_ptr<Chunk>> chunks_;  // the pointers change only under mutex_
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<size_t> queued_;  // chunks waiting for a thread
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> pool_;
  uint64_t size_ = 0;
};

// The gzip member of `in`, as GzipStream makes it of `in` given at once.
std::string gzipCompress(std::string_view in, int level, unsigned threads = 0);

}  // namespace profpack
