// Lowering the resident set while a large mapped input is parsed.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace profpack {

// Marks, for the current thread, the bytes of a read-only private mapping of a file (the C
// API's profpack_read_file input). Pages of such a mapping can be dropped cheaply: they read
// back from the file unchanged. Nested scopes are not needed (one read at a time per thread).
class FileMappingScope {
 public:
  explicit FileMappingScope(std::span<const uint8_t> mapping) {
    begin_ = mapping.data();
    end_ = mapping.data() + mapping.size();
  }
  ~FileMappingScope() { begin_ = end_ = nullptr; }
  FileMappingScope(const FileMappingScope&) = delete;
  FileMappingScope& operator=(const FileMappingScope&) = delete;
  static bool contains(const uint8_t* p, size_t n) {
    return begin_ && p >= begin_ && n <= static_cast<size_t>(end_ - p);
  }

 private:
  static inline thread_local const uint8_t* begin_ = nullptr;
  static inline thread_local const uint8_t* end_ = nullptr;
};

// Releases the pages of the input that have been parsed, so that a large mapped input does
// not stay resident while its IR is built. Neither way loses data: pages of a file mapping
// (FileMappingScope) are dropped with MADV_DONTNEED and read back from the file if touched
// again; any other memory (a caller's buffer, standard input) gets MADV_PAGEOUT, which only
// reclaims what can be reclaimed without changing the contents.
class PageReleaser {
 public:
  PageReleaser(const uint8_t* base, size_t size)
      : base_(base), size_(size), fileBacked_(FileMappingScope::contains(base, size)) {
    long ps = sysconf(_SC_PAGESIZE);
    page_ = ps > 0 ? static_cast<size_t>(ps) : 4096;
    done_ = 0;
  }
  void finish() { upTo(base_ + size_, true); }
  void upTo(const uint8_t* p, bool last = false) {
    if (size_ < kMinSize) return;
    size_t off = static_cast<size_t>(p - base_);
    if (off < done_ + kStep && !last) return;
    uintptr_t from = (reinterpret_cast<uintptr_t>(base_) + done_ + page_ - 1) / page_ * page_;
    uintptr_t to = (reinterpret_cast<uintptr_t>(base_) + off) / page_ * page_;
    if (to > from) {
      void* at = reinterpret_cast<void*>(from);
      if (fileBacked_) {
        madvise(at, to - from, MADV_DONTNEED);
      } else {
#ifdef MADV_PAGEOUT
        madvise(at, to - from, MADV_PAGEOUT);
#endif
      }
    }
    done_ = off;
  }

 private:
  static constexpr size_t kMinSize = size_t{8} << 20;
  static constexpr size_t kStep = size_t{2} << 20;
  const uint8_t* base_;
  size_t size_;
  bool fileBacked_;
  size_t page_, done_;
};

}  // namespace profpack
