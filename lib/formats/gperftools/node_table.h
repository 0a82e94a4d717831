// The gperftools reader's prefix tree of call chains and the hash table that finds a chain's
// node: slot loads in either width and byte order, the chain hashes, NodeTable.
#pragma once

#include <sys/mman.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace profpack::gperf {

template <unsigned W, bool BE>
inline uint64_t load(const uint8_t* p) {
  constexpr bool swap = BE != (std::endian::native == std::endian::big);
  if constexpr (W == 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    if constexpr (swap) v = __builtin_bswap32(v);
    return v;
  } else {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (swap) v = __builtin_bswap64(v);
    return v;
  }
}

inline uint64_t loadSlot(const uint8_t* p, unsigned w, bool be) {
  if (w == 4) return be ? load<4, true>(p) : load<4, false>(p);
  return be ? load<8, true>(p) : load<8, false>(p);
}

inline uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

// The prefix tree's nodes 1, 2, ... (0 is the root): node n's own PC at pc[n - 1] and its parent
// (0: the root) at parent[n - 1], as DecodedStacks keeps them, so that the reader hands them
// over as they are.
struct TreeNodes {
  std::vector<uint64_t> pc;
  std::vector<uint32_t> parent;
};

// A chain's hash is built from its outermost PC inward: from kHashSeed, one hashStep per PC,
// then hashOf with the chain's length. suffixHashes, chainHash and NodeTable::grow (which
// recomputes the hashes from the tree) must agree, so all three use these.
constexpr uint64_t kHashSeed = 0x9e3779b97f4a7c15ull;
inline uint64_t hashStep(uint64_t h, uint64_t pc) { return (h ^ pc) * 0xbf58476d1ce4e5b9ull; }
inline uint64_t hashOf(uint64_t h, uint64_t length) { return mix(h + length); }

// Every node of the prefix tree, keyed by its chain: the PCs from the node outward to the
// outermost frame, i.e. a suffix of some record's PCs. Lookups compare 32 bits of a 64-bit
// hash (the other bits pick the slot), then walk the node's PCs up the tree (arrays of a few
// MB that stay in cache) against the record's, so a chain seen before costs one
// probe instead of a walk down the tree, and the input bytes of earlier records are never read
// again (their pages can be released).
#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

template <unsigned W, bool BE>
class NodeTable {
 public:
  NodeTable() { slots_.allocate(mask_ + 1); }
  // Makes room for `more` inserts without growing (so slots found by find() stay valid).
  void reserve(size_t more) {
    while ((used_ + more) * 4 > mask_ * 3) grow();  // at most 3/4 full
  }
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // Prefetches the node a lookup of `h` will most likely compare against.
  // Returns that node (0: none likely).
  uint32_t prefetchChain(uint64_t h) const {
    const Slot& s = slots_[h & mask_];
    if (s.node == 0 || s.tag != tagOf(h)) return 0;
    __builtin_prefetch(&nodes_.pc[s.node - 1]);
    __builtin_prefetch(&nodes_.parent[s.node - 1]);
    return s.node;
  }
  // The node whose chain is the `n` PCs at `pcs`, or 0; `at` = where to insert it.
  uint32_t find(uint64_t h, const uint8_t* pcs, uint32_t n, size_t& at) const {
    size_t i = h & mask_;
    const uint32_t tag = tagOf(h);
    for (;;) {
      const Slot& s = slots_[i];
      if (s.node == 0) break;
      if (s.tag == tag && sameChain(s.node, pcs, n)) return s.node;
      i = (i + 1) & mask_;
    }
    at = i;
    return 0;
  }
  // Adds node number nodes() below `parent` (0: the root) with chain `pcs`[0 .. n-1], whose
  // first PC is the node's own, at the slot find() returned.
  uint32_t insert(size_t at, uint64_t h, const uint8_t* pcs, uint32_t n, uint32_t parent) {
    (void)n;
    const uint32_t node = static_cast<uint32_t>(nodes());
    nodes_.pc.push_back(load<W, BE>(pcs));
    nodes_.parent.push_back(parent);
    // Two chains of one record may have found the same empty slot: take the next free one.
    while (slots_[at].node != 0) at = (at + 1) & mask_;
    slots_[at] = {tagOf(h), node};
    ++used_;
    return node;
  }
  // Nodes so far, the root included.
  size_t nodes() const { return nodes_.pc.size() + 1; }
  // Every node but the root; the table is empty after.
  TreeNodes takeNodes() { return std::move(nodes_); }

 private:
  // Whether the chain of `node` (not the root) is the `n` PCs at `pcs`: n steps that match
  // end at the root, and not before. A node's PC and parent are loaded side by side, two
  // independent loads from the node's number.
  bool sameChain(uint32_t node, const uint8_t* pcs, uint32_t n) const {
    for (uint32_t k = 0; k < n; ++k, pcs += W) {
      if (node == 0 || nodes_.pc[node - 1] != load<W, BE>(pcs)) return false;
      node = nodes_.parent[node - 1];
    }
    return node == 0;
  }
  // 8 bytes: the table is the reader's largest allocation (8 MB for the 703,000 nodes of the
  // 50 MB workload open profile, at most 3/4 full), and each of its pages is touched fresh.
  struct Slot {
    uint32_t tag;   // the chain hash's upper half; its lower bits picked the slot
    uint32_t node;  // 0 = empty
  };
  static uint32_t tagOf(uint64_t h) { return static_cast<uint32_t>(h >> 32); }
  // Zeroed slots in anonymous memory, on huge pages where the kernel allows: lookups hit
  // random slots of a table that can reach hundreds of MB, and 4 KiB pages would add a TLB
  // miss to most of them.
  class Slots {
   public:
    Slots() = default;
    Slots(const Slots&) = delete;
    Slots& operator=(const Slots&) = delete;
    ~Slots() { release(); }
    void allocate(size_t n) {
      release();
      bytes_ = n * sizeof(Slot);
      void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      if (bytes_ >= (size_t{2} << 20)) madvise(p, bytes_, MADV_HUGEPAGE);
      p_ = static_cast<Slot*>(p);
    }
    // `n` empty slots, the current ones' pages reused: their mapping grows (mremap moves the
    // pages, it copies none) and is zeroed here, so only the added half is faulted in fresh.
    // ThreadSanitizer does not follow mremap: the range a table moved away from keeps the
    // accesses it saw there, and another thread's table mapped there later looks like a race.
    // Under it a table is mapped afresh instead.
    void regrow(size_t n) {
      const size_t bytes = n * sizeof(Slot);
      void* p = p_ && !kThreadSanitizer ? mremap(p_, bytes_, bytes, MREMAP_MAYMOVE) : MAP_FAILED;
      if (p == MAP_FAILED) return allocate(n);
      std::memset(p, 0, bytes_);
      if (bytes >= (size_t{2} << 20)) madvise(p, bytes, MADV_HUGEPAGE);
      p_ = static_cast<Slot*>(p);
      bytes_ = bytes;
    }
    Slot& operator[](size_t i) { return p_[i]; }
    const Slot& operator[](size_t i) const { return p_[i]; }

   private:
    void release() {
      if (p_) munmap(p_, bytes_);
      p_ = nullptr;
    }
    Slot* p_ = nullptr;
    size_t bytes_ = 0;
  };
  // A table twice the size (the old one's pages reused), every node in it again. The slots do not
  // keep the hashes' lower bits, so each node's hash is computed again from its parent's (a
  // parent's id is smaller than its children's), as suffixHashes computes it along a chain.
  void grow() {
    slots_.regrow(mask_ * 2 + 2);
    mask_ = mask_ * 2 + 1;
    struct Running {
      uint64_t hash;
      uint64_t depth;
    };
    // Left uninitialized: each entry is written before it is read (a parent's id is smaller).
    const size_t count = nodes();
    std::unique_ptr<Running[]> running(new Running[count]);
    running[0] = {kHashSeed, 0};
    for (size_t node = 1; node < count; ++node) {
      const Running& up = running[nodes_.parent[node - 1]];
      running[node] = {hashStep(up.hash, nodes_.pc[node - 1]), up.depth + 1};
      const uint64_t h = hashOf(running[node].hash, running[node].depth);
      size_t i = h & mask_;
      while (slots_[i].node != 0) i = (i + 1) & mask_;
      slots_[i] = {tagOf(h), static_cast<uint32_t>(node)};
    }
  }
  size_t mask_ = (1u << 12) - 1;
  size_t used_ = 0;
  Slots slots_;
  TreeNodes nodes_;
};

// Hashes of every suffix of a chain: out[j] covers pcs[j .. n-1], computed from the outer end.
template <unsigned W, bool BE>
inline void suffixHashes(const uint8_t* pcs, size_t n, uint64_t* out) {
  uint64_t h = kHashSeed;
  for (size_t j = n; j-- > 0;) {
    h = hashStep(h, load<W, BE>(pcs + j * W));
    out[j] = hashOf(h, n - j);
  }
}

// suffixHashes' out[0] (the whole chain) and out[1] (the chain without its leaf; n >= 2).
template <unsigned W, bool BE>
inline uint64_t chainHash(const uint8_t* pcs, size_t n, uint64_t* callerHash = nullptr) {
  uint64_t h = kHashSeed;
  for (size_t j = n; j-- > 1;) h = hashStep(h, load<W, BE>(pcs + j * W));
  if (callerHash && n >= 2) *callerHash = hashOf(h, n - 1);
  return hashOf(hashStep(h, load<W, BE>(pcs)), n);
}

}  // namespace profpack::gperf
