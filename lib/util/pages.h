// Lowering the resident set while a large mapped input is parsed.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace profpack {

// Releases the pages of the input that have been parsed, so that a large mapped trace does
// not stay resident while its IR is built. MADV_PAGEOUT never loses data (file pages are
// re-read, anonymous pages swapped or kept); it only lowers the resident set.
class PageReleaser {
 public:
  PageReleaser(const uint8_t* base, size_t size) : base_(base), size_(size) {
    long ps = sysconf(_SC_PAGESIZE);
    page_ = ps > 0 ? static_cast<size_t>(ps) : 4096;
    done_ = 0;
  }
  void finish() { upTo(base_ + size_, true); }
  void upTo(const uint8_t* p, bool last = false) {
#ifdef MADV_PAGEOUT
    if (size_ < kMinSize) return;
    size_t off = static_cast<size_t>(p - base_);
    if (off < done_ + kStep && !last) return;
    uintptr_t from = (reinterpret_cast<uintptr_t>(base_) + done_ + page_ - 1) / page_ * page_;
    uintptr_t to = (reinterpret_cast<uintptr_t>(base_) + off) / page_ * page_;
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_PAGEOUT);
    done_ = off;
#else
    (void)p;
#endif
  }

 private:
  static constexpr size_t kMinSize = size_t{8} << 20;
  static constexpr size_t kStep = size_t{2} << 20;
  const uint8_t* base_;
  size_t size_, page_, done_;
};

}  // namespace profpack
