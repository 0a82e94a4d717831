// The heap tuning of the CLI (one command, one large input, a few threads).

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "cli.h"

namespace cli {

// One command, one large input, a few threads: the heap is tuned for that, unless the user set
// GLIBC_TUNABLES (then those decide).
// - Freed memory is kept for the next allocation instead of every large block going back to
//   the kernel and fresh pages being faulted in for the next (glibc maps blocks from 128 KiB up
//   on their own).
// - The helper threads allocate from the one heap too, not from arenas of their own.
// - The heap grows in one step of 256 MiB of address space, on transparent huge pages where the
//   kernel allows them (madvise mode is the usual default): one fault per 2 MiB instead of per
//   4 KiB. Pages are still only used where touched, a huge page at a time.
// Converting a 50 MB gperftools profile to Callgrind faults about 8,000 pages in without these,
// 3,000 with them, and takes 12-15% less time for 1-3 MB more at the peak (2026-11-25).
void tuneHeap() {
  if (std::getenv("GLIBC_TUNABLES")) return;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest (64-bit)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_ARENA_MAX, 1);
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  mallopt(M_TOP_PAD, 256 << 20);
  const uintptr_t before = reinterpret_cast<uintptr_t>(sbrk(0));
  void* volatile grow = std::malloc(1 << 20);  // more than the heap has: it grows by the pad
  std::free(grow);
  // What the heap grew by, if it could grow (else the block came from mmap: nothing to do).
  const uintptr_t from = (before + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHuge - 1);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
  mallopt(M_TOP_PAD, 0);  // glibc's default: later growth as usual
}

}  // namespace cli
