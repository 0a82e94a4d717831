// gperftools CPU profile (specs/gperftools-cpuprofile-fileformat.adoc).
//
//   file    ::= header record* trailer maps_text
//   header  ::= 0 nwords slot[nwords]         (slot[0] = version 0, slot[1] = period in us)
//   record  ::= count num_pcs pc[num_pcs]
//   trailer ::= 0 1 0
//
// Slots are 4 or 8 bytes in either byte order; both are detected from the header. Kept in the
// IR: every header slot, every record (repeated chains stay separate records) in file order,
// except that the profiler's final table dump is stored sorted by chain with what restores its
// order, the trailer and the mapped-objects text byte for byte. Call chains are stored once in
// a prefix tree (outermost frame nearest the root); a record names the node of its innermost
// PC.

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "formats/gperftools/storage.h"
#include "util/pages.h"
#include "util/pairmap.h"
#include "util/text.h"

namespace profpack {

using gperf::AddressColumn;
using gperf::Body;
using gperf::kTailMax;
using gperf::TableHash;

namespace {

constexpr const char* kFmt = "gperftools";
constexpr size_t kMaxData = (size_t{1} << 29) - 1;  // Cap'n Proto Data / List size limit

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

uint64_t loadSlot(const uint8_t* p, unsigned w, bool be) {
  if (w == 4) return be ? load<4, true>(p) : load<4, false>(p);
  return be ? load<8, true>(p) : load<8, false>(p);
}

inline uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

// A node of the prefix tree: its own PC, its parent (0: the root) and its depth (the length
// of its chain; the root's is 0).
struct TreeNode {
  uint64_t pc;
  uint32_t parent;
  uint32_t depth;
};

// A chain's hash is built from its outermost PC inward: from kHashSeed, one hashStep per PC,
// then hashOf with the chain's length. suffixHashes, chainHash and NodeTable::grow (which
// recomputes the hashes from the tree) must agree, so all three use these.
constexpr uint64_t kHashSeed = 0x9e3779b97f4a7c15ull;
inline uint64_t hashStep(uint64_t h, uint64_t pc) { return (h ^ pc) * 0xbf58476d1ce4e5b9ull; }
inline uint64_t hashOf(uint64_t h, uint64_t length) { return mix(h + length); }

// Every node of the prefix tree, keyed by its chain: the PCs from the node outward to the
// outermost frame, i.e. a suffix of some record's PCs. Lookups compare 32 bits of a 64-bit
// hash (the other bits pick the slot) and the depth, then walk the node's PCs up the tree (an
// array of a few MB that stays in cache) against the record's, so a chain seen before costs one
// probe instead of a walk down the tree, and the input bytes of earlier records are never read
// again (their pages can be released).
template <unsigned W, bool BE>
class NodeTable {
 public:
  NodeTable() {
    slots_.allocate(mask_ + 1);
    nodes_.push_back({0, 0, 0});  // the root
  }
  // Makes room for `more` inserts without growing (so slots found by find() stay valid).
  void reserve(size_t more) {
    while ((used_ + more) * 2 > mask_) grow();
  }
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // Prefetches the node a lookup of `h` will most likely compare against.
  // Returns that node (0: none likely).
  uint32_t prefetchChain(uint64_t h) const {
    const Slot& s = slots_[h & mask_];
    if (s.node == 0 || s.tag != tagOf(h)) return 0;
    __builtin_prefetch(&nodes_[s.node]);
    return s.node;
  }
  // The node whose chain is the `n` PCs at `pcs`, or 0; `at` = where to insert it.
  uint32_t find(uint64_t h, const uint8_t* pcs, uint32_t n, size_t& at) const {
    size_t i = h & mask_;
    const uint32_t tag = tagOf(h);
    for (;;) {
      const Slot& s = slots_[i];
      if (s.node == 0) break;
      if (s.tag == tag && nodes_[s.node].depth == n && sameChain(s.node, pcs, n)) return s.node;
      i = (i + 1) & mask_;
    }
    at = i;
    return 0;
  }
  // Adds node number nodes() below `parent` (0: the root) with chain `pcs`[0 .. n-1], whose
  // first PC is the node's own, at the slot find() returned.
  uint32_t insert(size_t at, uint64_t h, const uint8_t* pcs, uint32_t n, uint32_t parent) {
    const uint32_t node = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({load<W, BE>(pcs), parent, n});
    // Two chains of one record may have found the same empty slot: take the next free one.
    while (slots_[at].node != 0) at = (at + 1) & mask_;
    slots_[at] = {tagOf(h), node};
    ++used_;
    return node;
  }
  // Nodes so far, the root included.
  size_t nodes() const { return nodes_.size(); }
  // Every node by id, [0] the root; the table is empty after.
  std::vector<TreeNode> takeNodes() { return std::move(nodes_); }

 private:
  using Node = TreeNode;
  // A node's depth is its chain's length, checked by the caller: n steps end at the root.
  bool sameChain(uint32_t node, const uint8_t* pcs, uint32_t n) const {
    for (uint32_t k = 0; k < n; ++k, pcs += W) {
      const Node& x = nodes_[node];
      if (x.pc != load<W, BE>(pcs)) return false;
      node = x.parent;
    }
    return true;
  }
  // 8 bytes: the table is the reader's largest allocation (4 MB for the 175,000 nodes of the
  // 50 MB bench profile), and each of its pages is touched fresh.
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
  // A table twice the size, every node in it again. The slots do not keep the hashes' lower
  // bits, so each node's hash is computed again from its parent's (a parent's id is smaller
  // than its children's), as suffixHashes computes it along a chain.
  void grow() {
    slots_.allocate(mask_ * 2 + 2);  // the old one is released first
    mask_ = mask_ * 2 + 1;
    std::vector<uint64_t> running(nodes_.size());
    running[0] = kHashSeed;
    for (size_t node = 1; node < nodes_.size(); ++node) {
      const Node& x = nodes_[node];
      running[node] = hashStep(running[x.parent], x.pc);
      const uint64_t h = hashOf(running[node], x.depth);
      size_t i = h & mask_;
      while (slots_[i].node != 0) i = (i + 1) & mask_;
      slots_[i] = {tagOf(h), static_cast<uint32_t>(node)};
    }
  }
  size_t mask_ = (1u << 12) - 1;
  size_t used_ = 0;
  Slots slots_;
  std::vector<Node> nodes_;
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

// The records that end a file in nondecreasing bucket order (at most kTailMax, the 1024 x 4
// entries of the profiler's table) and their buckets; none if there are fewer than 2.
struct Tail {
  std::vector<uint64_t> offset;  // of each record, in file order
  std::vector<uint32_t> bucket;
};

// The tail among the last records of a file, `last` (their offsets in file order).
template <unsigned W, bool BE>
Tail tailOf(const uint8_t* base, std::vector<uint64_t> last) {
  Tail t;
  t.offset = std::move(last);
  for (const uint64_t at : t.offset) {
    const uint64_t n = load<W, BE>(base + at + W);
    TableHash h(W);
    for (uint64_t k = 0; k < n; ++k) h.add(load<W, BE>(base + at + (2 + k) * W));
    t.bucket.push_back(h.bucket());
  }
  size_t start = t.bucket.size();
  while (start > 0 && (start == t.bucket.size() || t.bucket[start - 1] <= t.bucket[start])) --start;
  if (t.bucket.size() - start < 2) return {};
  t.offset.erase(t.offset.begin(), t.offset.begin() + static_cast<ptrdiff_t>(start));
  t.bucket.erase(t.bucket.begin(), t.bucket.begin() + static_cast<ptrdiff_t>(start));
  return t;
}

// For a tail added in `order` (order[j] = the file index of the j-th record added): per run of
// one bucket, the rank of each of the file's records among the run's records not yet placed,
// in added order, but the last (see tailRanks in profile.capnp).
void tailRanks(const std::vector<uint32_t>& bucket, const std::vector<uint32_t>& order,
               ColumnWriter& out) {
  std::vector<uint32_t> addedAt(order.size());
  for (size_t j = 0; j < order.size(); ++j) addedAt[order[j]] = static_cast<uint32_t>(j);
  std::vector<uint32_t> left;
  for (size_t s = 0, e; s < bucket.size(); s = e) {
    for (e = s + 1; e < bucket.size() && bucket[e] == bucket[s];) ++e;
    left.clear();
    for (size_t f = s; f < e; ++f) left.push_back(static_cast<uint32_t>(f));
    std::sort(left.begin(), left.end(),
              [&](uint32_t a, uint32_t b) { return addedAt[a] < addedAt[b]; });
    for (size_t f = s; f + 1 < e; ++f) {
      const auto it = std::find(left.begin(), left.end(), static_cast<uint32_t>(f));
      out.push(static_cast<uint64_t>(it - left.begin()));
      left.erase(it);
    }
  }
}

// A record the walk checked, with the hashes of its chain.
struct Walked {
  uint64_t at;          // byte offset of the record
  uint64_t hash;        // chainHash of its chain
  uint64_t callerHash;  // of the chain without its leaf; 0 for a chain of one PC
};

constexpr size_t kThreadFrom = size_t{1} << 20;  // bytes of records, for the helper threads

// The walk over the records from byte offset `pos` to the trailer. From kThreadFrom bytes of
// records it runs on a thread of its own: it checks each record, hashes its chain and hands it
// over through a ring, while the parsing thread adds the records to the tree. On a 50 MB
// profile that takes a seventh off the reader's time (its page faults on the input move to the
// walk too). The walk stops at the trailer or at the first bad record; the parsing thread meets
// that error after the records before it, as it would if it walked the records itself.
template <unsigned W, bool BE>
class RecordWalk {
 public:
  RecordWalk(std::span<const uint8_t> data, size_t pos)
      : base_(data.data()), size_(data.size()), pos_(pos) {
    // A small profile is walked as it is parsed: starting a thread would cost more than the
    // walk (the gperftools fuzzer ran at half its speed).
    if (size_ - pos < kThreadFrom) return;
    ring_.reset(new Walked[kRing]);
    try {
      thread_ = std::thread([this] { run(); });
    } catch (const std::system_error&) {
      // No thread to be had (a process limit, a sandbox): the parser walks as it goes.
    }
  }
  ~RecordWalk() {
    if (!thread_.joinable()) return;
    // The parser is done or gave up: stop the walk if it is still going.
    tail_.store(kFlag, std::memory_order_release);
    tail_.notify_one();
    thread_.join();
  }
  RecordWalk(const RecordWalk&) = delete;
  RecordWalk& operator=(const RecordWalk&) = delete;

  // The next record in file order; false at the trailer. Throws the walk's error where the
  // walk found it.
  bool next(Walked& out) {
    if (!thread_.joinable()) return step(out);
    if (taken_ == seen_) {
      tail_.store(taken_, std::memory_order_release);  // room for the walk before waiting
      tail_.notify_one();
      for (;;) {
        const uint64_t h = head_.load(std::memory_order_acquire);
        seen_ = h & ~kFlag;
        if (taken_ != seen_) break;
        if (h & kFlag) {
          if (error_) std::rethrow_exception(error_);
          return false;
        }
        head_.wait(h, std::memory_order_acquire);
      }
    }
    out = ring_[taken_++ % kRing];
    if (taken_ % kFreeBatch == 0) {
      tail_.store(taken_, std::memory_order_release);
      tail_.notify_one();
    }
    return true;
  }
  // The byte offset just past the trailer, once next() returned false.
  size_t end() const { return end_; }

 private:
  // The walk is the faster side and mostly waits for room: it is woken when a quarter of the
  // ring is free, and the parser sees new records every kBatch.
  static constexpr uint64_t kRing = 4096, kBatch = 64, kFreeBatch = kRing / 4;
  static constexpr uint64_t kFlag = uint64_t{1} << 63;  // head_: walk over; tail_: stop

  void run() {
    try {
      walk();
    } catch (...) {
      error_ = std::current_exception();
    }
    head_.store(put_ | kFlag, std::memory_order_release);
    head_.notify_one();
  }
  // Hands over a record; false if the parser stopped.
  bool put(const Walked& w) {
    while (put_ - free_ == kRing) {
      head_.store(put_, std::memory_order_release);  // what is ready, before waiting
      head_.notify_one();
      const uint64_t t = tail_.load(std::memory_order_acquire);
      if (t & kFlag) return false;
      if (t != free_) {
        free_ = t;
        break;
      }
      tail_.wait(t, std::memory_order_acquire);
    }
    ring_[put_++ % kRing] = w;
    if (put_ % kBatch == 0) {
      head_.store(put_, std::memory_order_release);
      head_.notify_one();
    }
    return true;
  }
  void walk() {
    for (Walked w; step(w);)
      if (!put(w)) return;
  }
  // Checks and hashes the record at pos_ and moves past it; false at the trailer.
  bool step(Walked& out) {
    const uint8_t* base = base_;
    const size_t size = size_;
    const size_t slotsEnd = size - size % W;  // records only use whole slots
    const size_t pos = pos_;
    if (pos == slotsEnd && pos == size)
      fail(kFmt, pos, kUnknown,
           "missing binary trailer: expected the slots 0, 1, 0 after the last record, found "
           "the end of the file");
    if (slotsEnd - pos < 2 * W)
      fail(kFmt, pos, kUnknown,
           "record runs past the end of the file: expected 2 slots (count, num_pcs) of " +
               std::to_string(W) + " bytes, found " + std::to_string(size - pos) +
               " bytes (missing binary trailer?)");
    const uint64_t count = load<W, BE>(base + pos);
    const uint64_t n = load<W, BE>(base + pos + W);
    const uint64_t left = (slotsEnd - pos) / W - 2;
    if (n == 0)
      fail(kFmt, pos + W, kUnknown, "record has num_pcs 0 (expected at least 1 program counter)");
    if (n > left)
      fail(kFmt, pos + W, kUnknown,
           "record's num_pcs " + std::to_string(n) + " is larger than the " + std::to_string(left) +
               " slots left in the file (record runs past the end; " + "missing binary trailer?)");
    if (count == 0 && n == 1 && load<W, BE>(base + pos + 2 * W) == 0) {
      end_ = pos + 3 * W;
      return false;
    }
    if (n * W > UINT32_MAX)
      throw Error(Status::limit, kFmt, "call chain of " + std::to_string(n) + " PCs is too long",
                  pos);
    uint64_t caller = 0;
    const uint64_t h = chainHash<W, BE>(base + pos + 2 * W, n, &caller);
    out = {pos, h, caller};
    pos_ = pos + (2 + n) * W;
    return true;
  }

  const uint8_t* base_;
  const size_t size_;
  size_t pos_;  // of the next record to walk
  std::unique_ptr<Walked[]> ring_;
  // The walk's side (put_, free_) and the parser's (taken_, seen_), each on its own cache line.
  alignas(64) std::atomic<uint64_t> head_{0};  // records handed over; kFlag once the walk ended
  uint64_t put_ = 0, free_ = 0;                // written; slots known free up to free_ + kRing
  alignas(64) std::atomic<uint64_t> tail_{0};  // records taken; kFlag: stop
  uint64_t taken_ = 0, seen_ = 0;              // taken; handed over, as last seen
  std::exception_ptr error_;                   // what stopped the walk, if not the trailer
  size_t end_ = 0;
  std::thread thread_;
};

// Parses the records from byte offset `pos` up to and including the trailer.
//
// Records come from the walk (RecordWalk) checked and hashed, and are added to the tree kTailMax
// records behind it: at the trailer the last kTailMax are still waiting, and those gperftools
// wrote from its table at the end can be added sorted by chain (like chains together: a
// smaller tree column).
//
// Most records repeat a chain seen before, and then the cost is two cache misses: the table
// slot and the nodes of the chain it is compared with. kAhead records in front of the adding,
// the record's slot is prefetched, and kAhead/2 records in front the node that slot points to,
// so those misses overlap.
//
// `keepNodes`, if not null, receives every node of the tree (see NodeTable::takeNodes).
template <unsigned W, bool BE>
void parseRecords(std::span<const uint8_t> data, size_t pos, Body& body,
                  std::vector<TreeNode>* keepNodes) {
  const uint8_t* base = data.data();
  const size_t size = data.size();
  NodeTable<W, BE> table;
  std::vector<uint64_t> hashes(64);
  std::vector<size_t> at(64);

  constexpr size_t kAhead = 16;
  std::vector<Walked> waiting(kTailMax);  // records [done, walked), by index
  uint64_t walked = 0, done = 0;

  // Adds the chain of the record at `pos` (num_pcs `n`, checked; chain hash `h0`) to the tree
  // and returns its node.
  auto insert = [&](uint64_t recordAt, uint64_t n, uint64_t h0) {
    table.reserve(n);  // no growth below, so the insert positions found stay valid
    const uint64_t pcsAt = recordAt + 2 * W;
    const uint8_t* pcs = base + pcsAt;
    size_t at0 = 0;
    uint32_t node = table.find(h0, pcs, static_cast<uint32_t>(n), at0);
    if (node == 0) {
      // A new chain: find the longest suffix already in the tree (j == n: none, the root)
      // and add the missing inner nodes, outermost first.
      if (n > hashes.size()) {  // n is bounded by the bytes left, checked above
        hashes.resize(n);
        at.resize(n);
      }
      suffixHashes<W, BE>(pcs, n, hashes.data());
      at[0] = at0;
      size_t j = 1;
      for (size_t k = 1; k < n && k < 5; ++k) table.prefetch(hashes[k]);
      for (; j < n; ++j) {
        node = table.find(hashes[j], pcs + j * W, static_cast<uint32_t>(n - j), at[j]);
        if (node) break;
        if (j + 4 < n) table.prefetch(hashes[j + 4]);
      }
      if (table.nodes() > UINT32_MAX - j)
        throw Error(Status::limit, kFmt, "more than 2^32 call-chain nodes", recordAt);
      body.addBranch(node);
      while (j-- > 0) {
        const uint32_t child =
            table.insert(at[j], hashes[j], pcs + j * W, static_cast<uint32_t>(n - j), node);
        body.addNode(node, load<W, BE>(pcs + j * W));
        node = child;
      }
    }
    return node;
  };

  PageReleaser releaser(base, size);
  // Adds the oldest waiting record.
  auto addNext = [&] {
    if (done + kAhead < walked) {
      const Walked& a = waiting[(done + kAhead) % kTailMax];
      table.prefetch(a.hash);
      if (a.callerHash) table.prefetch(a.callerHash);
    }
    if (done + kAhead / 2 < walked) {
      const Walked& a = waiting[(done + kAhead / 2) % kTailMax];
      // The node a repeated chain ends at is most likely the one found: its samples are added.
      if (const uint32_t n = table.prefetchChain(a.hash)) body.prefetchSamples(n);
      if (a.callerHash) table.prefetchChain(a.callerHash);
    }
    const Walked& r = waiting[done % kTailMax];
    body.addRecord(load<W, BE>(base + r.at), insert(r.at, load<W, BE>(base + r.at + W), r.hash));
    ++done;
    if (done < walked)
      releaser.upTo(base + waiting[done % kTailMax].at);  // no earlier byte is read
  };

  {
    RecordWalk<W, BE> walk(data, pos);
    for (Walked r; walk.next(r);) {
      if (walked - done == kTailMax) addNext();
      waiting[walked % kTailMax] = r;
      ++walked;
    }
    body.end = walk.end();
  }

  // At the trailer: the waiting records before the tail in file order, then the tail sorted by
  // pcs as numbers, innermost first (nearby leaves together code smaller than a bytewise order
  // of little-endian pcs would), then length, then count.
  std::vector<uint64_t> last;
  for (uint64_t r = done; r < walked; ++r) last.push_back(waiting[r % kTailMax].at);
  const Tail tail = tailOf<W, BE>(base, std::move(last));
  while (done < walked - tail.offset.size()) addNext();
  const size_t t = tail.offset.size();  // 0: nothing below is done (no tail, no ranks)
  std::vector<uint32_t> order(t);
  for (size_t i = 0; i < t; ++i) order[i] = static_cast<uint32_t>(i);
  auto slot = [&](uint32_t i, uint64_t k) { return load<W, BE>(base + tail.offset[i] + k * W); };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const uint64_t na = slot(a, 1), nb = slot(b, 1);
    for (uint64_t k = 0; k < na && k < nb; ++k)
      if (slot(a, 2 + k) != slot(b, 2 + k)) return slot(a, 2 + k) < slot(b, 2 + k);
    if (na != nb) return na < nb;
    if (slot(a, 0) != slot(b, 0)) return slot(a, 0) < slot(b, 0);
    return a < b;
  });
  for (uint32_t i : order) {
    const uint64_t recordAt = tail.offset[i], n = slot(i, 1);
    body.addRecord(slot(i, 0), insert(recordAt, n, chainHash<W, BE>(base + recordAt + 2 * W, n)));
  }
  body.sortedTail = t;
  tailRanks(tail.bucket, order, body.ranks);
  if (keepNodes) *keepNodes = table.takeNodes();
}

// The IR but for the stack columns: what the file holds besides its records.
struct Rest {
  unsigned slotBytes;
  bool bigEndian;
  std::vector<uint64_t> header;  // every header slot, the count and nwords included
  uint64_t trailer[3];
  kj::ArrayPtr<const kj::byte> mapsText;
};

// Sets every field of the IR but the stack columns; the columns go after (build() of a Body):
// zstd's fast levels search ever more sparsely through data they find no matches in, and text
// placed after the columns compressed 3 KB worse. Returns the stacks, for the columns.
ir::StackSamples::Builder buildRest(ir::Profile::Builder root, const Rest& r) {
  root.setFormat(ir::Format::GPERFTOOLS);
  root.setFormatVersion("0");
  StringInterner strings;
  strings.build(root.initStrings());
  auto st = root.initStacks();
  st.setSlotBytes(static_cast<uint8_t>(r.slotBytes));
  st.setBigEndian(r.bigEndian);
  auto hdr = st.initHeaderSlots(static_cast<unsigned>(r.header.size()));
  for (unsigned i = 0; i < r.header.size(); ++i) hdr.set(i, r.header[i]);
  st.setSamplingPeriodUs(r.header[3]);
  auto trailer = st.initTrailerSlots(3);
  for (unsigned i = 0; i < 3; ++i) trailer.set(i, r.trailer[i]);
  st.setMapsText(r.mapsText);
  return st;
}

// The stack columns of a profile read with deferIR: the records' columns as the parser pushed
// them, and the tree's nodes, whose address column is encoded only now. The whole IR is built
// in the order an eager reading builds it, so it is the same byte for byte.
class DeferredStacks : public Profile::Deferred {
 public:
  DeferredStacks(std::unique_ptr<Body> body, std::vector<TreeNode> nodes, size_t expectedBytes)
      : body_(std::move(body)), nodes_(std::move(nodes)), expectedBytes_(expectedBytes) {}
  void complete(ir::Profile::Reader partial, ir::Profile::Builder whole) override {
    const auto from = partial.getStacks();
    Rest r{from.getSlotBytes(), from.getBigEndian(), {}, {}, from.getMapsText()};
    for (uint64_t v : from.getHeaderSlots()) r.header.push_back(v);
    for (unsigned i = 0; i < 3; ++i) r.trailer[i] = from.getTrailerSlots()[i];
    auto st = buildRest(whole, r);
    AddressColumn column;
    for (size_t n = 1; n < nodes_.size(); ++n) column.add(nodes_[n].parent, nodes_[n].pc);
    body_->build(st, column);
  }
  size_t expectedBytes() const override { return expectedBytes_; }

 private:
  std::unique_ptr<Body> body_;
  std::vector<TreeNode> nodes_;
  size_t expectedBytes_;
};

}  // namespace

std::unique_ptr<Profile> readGperftools(std::span<const uint8_t> data, bool deferIR) {
  const size_t size = data.size();
  const uint8_t* p = data.data();
  if (size == 0) fail(kFmt, 0, kUnknown, "empty file: expected a gperftools CPU profile header");
  if (size < 8)
    fail(kFmt, 0, kUnknown,
         "file too short for a header: expected at least 20 bytes, found " + std::to_string(size));
  if (load<4, false>(p) != 0)
    fail(kFmt, 0, kUnknown,
         "header count slot must be 0, found " + hexString(load<4, false>(p)) +
             " (not a gperftools CPU profile)");
  // Slot 1 (>= 3) decides: its upper half is 0 in 64-bit files, so a non-zero second 4-byte
  // word means 4-byte slots; of the two byte orders the smaller value is the real one.
  unsigned w = load<4, false>(p + 4) != 0 ? 4 : 8;
  if (w == 8 && size < 16)
    fail(kFmt, 0, kUnknown,
         "file too short for a header: expected at least 40 bytes, found " + std::to_string(size));
  const uint64_t le = loadSlot(p + w, w, false), be = loadSlot(p + w, w, true);
  const bool bigEndian = be < le;
  const uint64_t words = bigEndian ? be : le;
  if (words < 3)
    fail(kFmt, w, kUnknown,
         "header slots after the count must be at least 3 (version, period, padding), found " +
             std::to_string(words));
  const uint64_t slotsLeft = size / w - 2;
  if (words > slotsLeft)
    fail(kFmt, w, kUnknown,
         "header declares " + std::to_string(words) + " slots after the count but only " +
             std::to_string(slotsLeft) + " slots follow");
  if (words + 2 > kMaxData / 8)
    throw Error(Status::limit, kFmt, "header of " + std::to_string(words) + " slots is too long",
                w);
  const uint64_t version = loadSlot(p + 2 * w, w, bigEndian);
  if (version != 0)
    fail(kFmt, 2 * w, kUnknown,
         "unsupported format version: expected 0, found " + std::to_string(version));

  auto bodyOwner = std::make_unique<Body>();
  Body& body = *bodyOwner;
  const size_t recordsAt = static_cast<size_t>((2 + words) * w);
  std::vector<TreeNode> nodes;
  std::vector<TreeNode>* keepNodes = nullptr;
  if (deferIR) {
    body.deferAddresses = true;
    keepNodes = &nodes;
  } else {
    // Each node is a PC slot of some record; as for the record walk, a thread only pays off
    // for a large profile.
    body.address.start(size - recordsAt >= kThreadFrom, (size - recordsAt) / w);
  }
  if (w == 4) {
    if (bigEndian)
      parseRecords<4, true>(data, recordsAt, body, keepNodes);
    else
      parseRecords<4, false>(data, recordsAt, body, keepNodes);
  } else {
    if (bigEndian)
      parseRecords<8, true>(data, recordsAt, body, keepNodes);
    else
      parseRecords<8, false>(data, recordsAt, body, keepNodes);
  }
  const size_t textAt = body.end;
  if (size - textAt > kMaxData)
    throw Error(Status::limit, kFmt, "mapped-objects text larger than 512 MiB", textAt);
  std::string_view text(reinterpret_cast<const char*>(p + textAt), size - textAt);

  Rest rest{w,
            bigEndian,
            std::vector<uint64_t>(words + 2),
            {},
            kj::ArrayPtr<const kj::byte>(p + textAt, size - textAt)};
  for (unsigned i = 0; i < words + 2; ++i) rest.header[i] = loadSlot(p + i * w, w, bigEndian);
  for (unsigned i = 0; i < 3; ++i)
    rest.trailer[i] = loadSlot(p + textAt - 3 * w + i * w, w, bigEndian);

  auto decoded = std::make_unique<ReadStacks>();
  body.parent.erase(body.parent.begin());
  decoded->parent = std::move(body.parent);
  decoded->samples = std::move(body.samples);
  std::unique_ptr<Profile> profile;
  if (deferIR) {
    // This message holds the rest of the IR; the whole one is built when asked for.
    auto message = newMessage(size - textAt + 8 * words);
    buildRest(message->getRoot<ir::Profile>(), rest);
    decoded->address.reserve(nodes.size() - 1);
    for (size_t n = 1; n < nodes.size(); ++n) decoded->address.push_back(nodes[n].pc);
    profile = std::make_unique<Profile>(
        std::move(message),
        std::make_unique<DeferredStacks>(std::move(bodyOwner), std::move(nodes), size / 4));
  } else {
    auto message = newMessage(size / 4);
    auto st = buildRest(message->getRoot<ir::Profile>(), rest);
    AddressColumn& addresses = body.address.finish();
    body.build(st, addresses);
    decoded->address = addresses.takeAddresses();
    profile = std::make_unique<Profile>(std::move(message));
  }
  profile->keepDecoded(std::move(decoded));
  return profile;
}

bool isGperftools(std::span<const uint8_t> data) {
  // Header slot 0 is 0 and slot 1 is >= 3, in any width and byte order.
  if (data.size() < 8) return false;
  auto u32 = [&](size_t off, bool be) {
    const uint8_t* p = data.data() + off;
    return be ? (uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3])
              : (uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | p[0]);
  };
  if (u32(0, false) != 0) return false;
  if (u32(4, false) >= 3 && u32(4, false) < 0x10000) return true;  // 32-bit little-endian
  if (u32(4, true) >= 3 && u32(4, true) < 0x10000) return true;    // 32-bit big-endian
  return data.size() >= 16 && u32(4, false) == 0 &&
         ((u32(8, false) >= 3 && u32(8, false) < 0x10000 && u32(12, false) == 0) ||
          (u32(8, false) == 0 && u32(12, true) >= 3 && u32(12, true) < 0x10000));  // 64 LE / BE
}

}  // namespace profpack
