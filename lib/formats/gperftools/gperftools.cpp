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

#include "formats/gperftools/gperftools.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "error.h"
#include "util/pairmap.h"
#include "util/text.h"

namespace profpack {

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

std::string hex(uint64_t v) {
  std::string s;
  appendHex(s, v);
  return s;
}

inline uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

// Every node of the prefix tree, keyed by its chain: the PCs from the node outward to the
// outermost frame, i.e. a suffix of some record's PCs. Lookups compare a 64-bit hash, then
// the bytes of the suffix against those of the record the node was created from, so a chain
// seen before costs one probe instead of a walk down the tree.
class NodeTable {
 public:
  explicit NodeTable(const uint8_t* base) : base_(base) { slots_.allocate(mask_ + 1); }
  // Makes room for `more` inserts without growing (so slots found by find() stay valid).
  void reserve(size_t more) {
    while ((used_ + more) * 2 > mask_) grow();
  }
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // Prefetches the bytes a lookup of `h` will most likely compare against.
  void prefetchChain(uint64_t h) const {
    const Slot& s = slots_[h & mask_];
    if (s.node != 0 && s.hash == h) {
      __builtin_prefetch(base_ + s.offset);
      __builtin_prefetch(base_ + s.offset + s.bytes - 1);
    }
  }
  // The node whose chain is the `bytes` bytes at `offset`, or 0; `at` = where to insert it.
  uint32_t find(uint64_t h, uint64_t offset, uint32_t bytes, size_t& at) const {
    size_t i = h & mask_;
    for (;;) {
      const Slot& s = slots_[i];
      if (s.node == 0) break;
      if (s.hash == h && s.bytes == bytes &&
          std::memcmp(base_ + s.offset, base_ + offset, bytes) == 0)
        return s.node;
      i = (i + 1) & mask_;
    }
    at = i;
    return 0;
  }
  void insert(size_t at, uint64_t h, uint64_t offset, uint32_t bytes, uint32_t node) {
    // Two chains of one record may have found the same empty slot: take the next free one.
    while (slots_[at].node != 0) at = (at + 1) & mask_;
    slots_[at] = {h, offset, bytes, node};
    ++used_;
  }

 private:
  struct Slot {
    uint64_t hash;
    uint64_t offset;
    uint32_t bytes;
    uint32_t node;  // 0 = empty
  };
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
      n_ = n;
    }
    void swap(Slots& o) {
      std::swap(p_, o.p_);
      std::swap(n_, o.n_);
      std::swap(bytes_, o.bytes_);
    }
    Slot& operator[](size_t i) { return p_[i]; }
    const Slot& operator[](size_t i) const { return p_[i]; }
    const Slot* begin() const { return p_; }
    const Slot* end() const { return p_ + n_; }

   private:
    void release() {
      if (p_) munmap(p_, bytes_);
      p_ = nullptr;
    }
    Slot* p_ = nullptr;
    size_t n_ = 0, bytes_ = 0;
  };
  void grow() {
    Slots old;
    old.swap(slots_);
    mask_ = mask_ * 2 + 1;
    slots_.allocate(mask_ + 1);
    for (const Slot& s : old) {
      if (s.node == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].node != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  const uint8_t* base_;
  size_t mask_ = (1u << 12) - 1;
  size_t used_ = 0;
  Slots slots_;
};

// The profiler's own hash of a chain, fed innermost pc first, in slot-wide arithmetic, and the
// bucket of its 1024-bucket table (see sortedTail in profile.capnp).
class TableHash {
 public:
  explicit TableHash(unsigned slotBytes) : wide_(slotBytes == 8) {}
  void add(uint64_t pc) {
    if (wide_)
      h_ = std::rotl(h_, 8) + pc * 41;
    else
      h_ = static_cast<uint32_t>(std::rotl(static_cast<uint32_t>(h_), 8) +
                                 static_cast<uint32_t>(pc) * 41u);
  }
  uint32_t bucket() const { return static_cast<uint32_t>(h_ % 1024); }

 private:
  bool wide_;
  uint64_t h_ = 0;
};

// StackSamples.addressCoding 1: the pcs called from one call site (the nodes whose parents
// have the same pc), as a list of the 4 most recent, newest first. A call site calls the same
// few functions again and again from different stacks: on a real profile (python3, 38,000
// nodes) the address column went from 49 to 39 KB (zstd -3).
class RecentCallees {
 public:
  static constexpr uint64_t kEscape = 4;  // the pc is in nodeAddressEscapes
  // The stored value of a node at `pc` whose parent is at `parentPc`; `ref` is r(n).
  uint64_t encode(uint64_t parentPc, uint64_t pc, uint64_t ref) {
    List& l = list(parentPc);
    for (uint32_t k = 0; k < l.n; ++k)
      if (l.pc[k] == pc) {
        toFront(l, k, pc);
        return k;
      }
    const uint64_t d = pc - (l.n ? l.pc[0] : ref);
    const uint64_t z = (d << 1) ^ (0 - (d >> 63));
    toFront(l, l.n < kSize ? l.n++ : kSize - 1, pc);
    return z <= UINT64_MAX - 5 ? z + 5 : kEscape;
  }
  // The pc of a node stored as `v` (kEscape: `escaped`); false if v names a list entry that
  // does not exist.
  bool decode(uint64_t parentPc, uint64_t v, uint64_t ref, uint64_t escaped, uint64_t& pc) {
    List& l = list(parentPc);
    if (v < kEscape) {
      if (v >= l.n) return false;
      pc = l.pc[v];
      toFront(l, static_cast<uint32_t>(v), pc);
      return true;
    }
    if (v == kEscape) {
      pc = escaped;
    } else {
      const uint64_t z = v - 5;
      pc = (l.n ? l.pc[0] : ref) + ((z >> 1) ^ (0 - (z & 1)));
    }
    toFront(l, l.n < kSize ? l.n++ : kSize - 1, pc);
    return true;
  }

 private:
  static constexpr uint32_t kSize = 4;
  struct List {
    uint64_t pc[kSize];
    uint32_t n = 0;
  };
  List& list(uint64_t parentPc) {
    bool inserted;
    const uint64_t i = index_.findOrInsert(parentPc, 0, lists_.size(), inserted);
    if (inserted) lists_.emplace_back();
    return lists_[i];
  }
  // Moves entry k (or, for k == n - 1 of a list just grown, the new slot) to the front as pc.
  static void toFront(List& l, uint32_t k, uint64_t pc) {
    for (; k > 0; --k) l.pc[k] = l.pc[k - 1];
    l.pc[0] = pc;
  }
  PairMap index_;
  std::vector<List> lists_;
};

constexpr auto kAdaptive = ir::Column::Encoding::ADAPTIVE;

// The tree's addresses as addressCoding 1 stores them (nodeAddress, nodeAddressEscapes),
// given node by node in id order with their parents.
class AddressColumn {
 public:
  void add(uint64_t parent, uint64_t pc) {
    const uint32_t sib = lastChild_[parent];
    const uint64_t v = callees_.encode(pcs_[parent], pc, pcs_[sib ? sib : parent]);
    address_.push(v);
    if (v == RecentCallees::kEscape) escapes_.push(pc);
    lastChild_[parent] = static_cast<uint32_t>(pcs_.size());
    pcs_.push_back(pc);
    lastChild_.push_back(0);
  }
  void build(ir::StackSamples::Builder out) {
    address_.build(out.initNodeAddress());
    out.setAddressCoding(1);
    escapes_.build(out.initNodeAddressEscapes());
  }

 private:
  RecentCallees callees_;
  ColumnWriter address_{kAdaptive}, escapes_{kAdaptive};
  std::vector<uint64_t> pcs_{0};        // by node id; [0] = the root
  std::vector<uint32_t> lastChild_{0};  // by node id: newest child, 0 = none
};

// The tree and the records as the IR codes them (see StackSamples in profile.capnp, treeCoding
// 1): for each record that adds nodes, the node its new nodes branch from; addresses by
// RecentCallees; a record's node as the number of nodes it added or as an earlier node's id.
struct Body {
  ColumnWriter branch{kAdaptive}, count{kAdaptive}, node{kAdaptive};
  AddressColumn address;
  uint64_t newest = 0;  // the largest node id a record named so far
  size_t end = 0;       // byte offset just past the trailer

  // A record adds nodes below `par`: call before adding them with addNode.
  void addBranch(uint64_t par) { branch.push(par); }
  void addNode(uint64_t par, uint64_t addr) { address.add(par, addr); }
  void addRecord(uint64_t c, uint64_t n) {
    count.push(c);
    if (n > newest) {
      node.push(2 * (n - newest - 1));
      newest = n;
    } else {
      node.push(2 * n + 1);
    }
  }
  // The last sortedTail records were added in an order of the reader's choosing (see
  // sortedTail in profile.capnp); `ranks` restores file order.
  uint64_t sortedTail = 0;
  ColumnWriter ranks{kAdaptive};

  void build(ir::StackSamples::Builder st) {
    branch.build(st.initNodeParent());
    st.setTreeCoding(1);
    if (sortedTail) {
      st.setSortedTail(sortedTail);
      ranks.build(st.initTailRanks());
    }
    address.build(st);
    count.build(st.initSampleCount());
    node.build(st.initSampleNode());
  }
};

// Hashes of every suffix of a chain: out[j] covers pcs[j .. n-1], computed from the outer end.
template <unsigned W, bool BE>
inline void suffixHashes(const uint8_t* pcs, size_t n, uint64_t* out) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (size_t j = n; j-- > 0;) {
    h = (h ^ load<W, BE>(pcs + j * W)) * 0xbf58476d1ce4e5b9ull;
    out[j] = mix(h + (n - j));
  }
}

// suffixHashes' out[0] (the whole chain) and out[1] (the chain without its leaf; n >= 2).
template <unsigned W, bool BE>
inline uint64_t chainHash(const uint8_t* pcs, size_t n, uint64_t* callerHash = nullptr) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (size_t j = n; j-- > 1;) {
    h = (h ^ load<W, BE>(pcs + j * W)) * 0xbf58476d1ce4e5b9ull;
  }
  if (callerHash && n >= 2) *callerHash = mix(h + (n - 1));
  h = (h ^ load<W, BE>(pcs)) * 0xbf58476d1ce4e5b9ull;
  return mix(h + n);
}

// The records that end a file in nondecreasing bucket order (at most kTailMax, the 1024 x 4
// entries of the profiler's table) and their buckets; none if there are fewer than 2, or if
// the walk to the trailer meets anything malformed (parseRecords then reports it).
struct Tail {
  std::vector<uint64_t> offset;  // of each record, in file order
  std::vector<uint32_t> bucket;
};
constexpr size_t kTailMax = 4096;

template <unsigned W, bool BE>
Tail sortableTail(const uint8_t* base, size_t slotsEnd, size_t pos) {
  // Walk the record headers to the trailer, keeping the offsets of the last kTailMax records.
  std::vector<uint64_t> ring(kTailMax);
  uint64_t total = 0;
  for (;;) {
    if (slotsEnd - pos < 3 * W) return {};
    const uint64_t n = load<W, BE>(base + pos + W);
    if (n == 0 || n > (slotsEnd - pos) / W - 2 || n * W > UINT32_MAX) return {};
    if (n == 1 && load<W, BE>(base + pos) == 0 && load<W, BE>(base + pos + 2 * W) == 0) break;
    ring[total % kTailMax] = pos;
    ++total;
    pos += (2 + n) * W;
  }
  Tail t;
  for (uint64_t r = total - std::min<uint64_t>(total, kTailMax); r < total; ++r) {
    const uint64_t at = ring[r % kTailMax];
    const uint64_t n = load<W, BE>(base + at + W);
    TableHash h(W);
    for (uint64_t k = 0; k < n; ++k) h.add(load<W, BE>(base + at + (2 + k) * W));
    t.offset.push_back(at);
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

// Parses the records from byte offset `pos` up to and including the trailer.
//
// Most records repeat a chain seen before, and then the cost is two cache misses: the table
// slot and the bytes of the earlier record it is compared with. A look-ahead runs kAhead
// records in front, hashing each record's chain and prefetching its slot, and kAhead/2 records
// in front prefetches the bytes that slot points to, so those misses overlap.
template <unsigned W, bool BE>
void parseRecords(std::span<const uint8_t> data, size_t pos, Body& body) {
  const uint8_t* base = data.data();
  const size_t size = data.size();
  const size_t slotsEnd = size - size % W;  // records only use whole slots
  NodeTable table(base);
  std::vector<uint64_t> hashes(64);
  std::vector<size_t> at(64);
  uint32_t nodes = 0;

  constexpr size_t kRing = 32, kAhead = 16;
  struct Ahead {
    uint64_t hash, callerHash;  // of the chain, and of the chain without its leaf (or 0)
  };
  Ahead ring[kRing];
  size_t scanPos = pos, scanned = 0, done = 0;
  bool scanning = true;
  // Hashes the next record in front and prefetches its slot; stops at anything unusual (the
  // trailer, a malformed record), which the main loop then handles and reports.
  auto scanOne = [&] {
    if (slotsEnd - scanPos < 2 * W) {
      scanning = false;
      return;
    }
    const uint64_t n = load<W, BE>(base + scanPos + W);
    if (n == 0 || n > (slotsEnd - scanPos) / W - 2 || load<W, BE>(base + scanPos) == 0) {
      scanning = false;
      return;
    }
    uint64_t caller = 0;
    const uint64_t h = chainHash<W, BE>(base + scanPos + 2 * W, n, &caller);
    table.prefetch(h);
    if (n >= 2) table.prefetch(caller);
    ring[scanned % kRing] = {h, caller};
    ++scanned;
    scanPos += (2 + n) * W;
  };

  // Adds the chain of the record at `pos` (num_pcs `n`, checked; chain hash `h0`) to the tree
  // and returns its node.
  auto insert = [&](uint64_t recordAt, uint64_t n, uint64_t h0) {
    table.reserve(n);  // no growth below, so the insert positions found stay valid
    const uint64_t pcsAt = recordAt + 2 * W;
    const uint8_t* pcs = base + pcsAt;
    size_t at0 = 0;
    uint32_t node = table.find(h0, pcsAt, static_cast<uint32_t>(n * W), at0);
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
        node = table.find(hashes[j], pcsAt + j * W, static_cast<uint32_t>((n - j) * W), at[j]);
        if (node) break;
        if (j + 4 < n) table.prefetch(hashes[j + 4]);
      }
      if (nodes > UINT32_MAX - 1 - j)
        throw Error(Status::limit, kFmt, "more than 2^32 call-chain nodes", recordAt);
      body.addBranch(node);
      while (j-- > 0) {
        ++nodes;
        table.insert(at[j], hashes[j], pcsAt + j * W, static_cast<uint32_t>((n - j) * W), nodes);
        body.addNode(node, load<W, BE>(pcs + j * W));
        node = nodes;
      }
    }
    return node;
  };

  // The records gperftools wrote from its table at the end are added sorted by chain (like
  // chains together: a smaller tree column), once the records before them are in.
  const Tail tail = sortableTail<W, BE>(base, slotsEnd, pos);
  auto addTail = [&] {
    const size_t t = tail.offset.size();
    std::vector<uint32_t> order(t);
    for (size_t i = 0; i < t; ++i) order[i] = static_cast<uint32_t>(i);
    auto slot = [&](uint32_t i, uint64_t k) { return load<W, BE>(base + tail.offset[i] + k * W); };
    // By pcs as numbers, innermost first (nearby leaves together code smaller than a bytewise
    // order of little-endian pcs would), then length, then count.
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const uint64_t na = slot(a, 1), nb = slot(b, 1);
      for (uint64_t k = 0; k < na && k < nb; ++k)
        if (slot(a, 2 + k) != slot(b, 2 + k)) return slot(a, 2 + k) < slot(b, 2 + k);
      if (na != nb) return na < nb;
      if (slot(a, 0) != slot(b, 0)) return slot(a, 0) < slot(b, 0);
      return a < b;
    });
    for (uint32_t i : order) {
      const uint64_t at = tail.offset[i], n = slot(i, 1);
      body.addRecord(slot(i, 0), insert(at, n, chainHash<W, BE>(base + at + 2 * W, n)));
    }
    body.sortedTail = t;
    tailRanks(tail.bucket, order, body.ranks);
    return tail.offset.back() + (2 + slot(static_cast<uint32_t>(t - 1), 1)) * W;
  };

  for (;;) {
    if (!tail.offset.empty() && pos == tail.offset[0]) {
      pos = addTail();  // the trailer follows, which the loop below reads as usual
      scanning = false;
      done = scanned;
    }
    while (scanning && scanned < done + kAhead) scanOne();
    if (done + kAhead / 2 < scanned) {
      const Ahead& a = ring[(done + kAhead / 2) % kRing];
      table.prefetchChain(a.hash);
      if (a.callerHash) table.prefetchChain(a.callerHash);
    }

    if (pos == slotsEnd && pos == size)
      fail(kFmt, pos, kUnknown,
           "missing binary trailer: expected the slots 0, 1, 0 after the last record, found the "
           "end of the file");
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
    const uint8_t* pcs = base + pos + 2 * W;
    if (count == 0 && n == 1 && load<W, BE>(pcs) == 0) {
      body.end = pos + 3 * W;
      return;
    }
    if (n * W > UINT32_MAX)
      throw Error(Status::limit, kFmt, "call chain of " + std::to_string(n) + " PCs is too long",
                  pos);
    body.addRecord(
        count, insert(pos, n, done < scanned ? ring[done % kRing].hash : chainHash<W, BE>(pcs, n)));
    pos += (2 + n) * W;
    ++done;
  }
}

// Parses "start-end perms offset dev inode [path]"; false if the line is not such a line.
bool parseMapping(std::string_view s, GperfMapping& m) {
  auto hexNum = [&](size_t& i, uint64_t& v) {
    size_t b = i;
    v = 0;
    while (i < s.size()) {
      char c = s[i];
      unsigned d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        break;
      if (v >> 60) return false;
      v = v << 4 | d;
      ++i;
    }
    return i > b;
  };
  auto blanks = [&](size_t& i) {
    size_t b = i;
    while (i < s.size() && isSpace(s[i])) ++i;
    return i > b;
  };
  auto token = [&](size_t& i, std::string_view& t) {
    size_t b = i;
    while (i < s.size() && !isSpace(s[i])) ++i;
    t = s.substr(b, i - b);
    return i > b;
  };
  size_t i = 0;
  uint64_t start, limit, offset, inode = 0;
  std::string_view perms, dev;
  if (!hexNum(i, start) || i >= s.size() || s[i++] != '-' || !hexNum(i, limit)) return false;
  if (!blanks(i) || !token(i, perms) || !blanks(i) || !hexNum(i, offset) || !blanks(i) ||
      !token(i, dev) || !blanks(i))
    return false;
  size_t b = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (inode > (UINT64_MAX - 9) / 10) return false;
    inode = inode * 10 + static_cast<uint64_t>(s[i] - '0');
    ++i;
  }
  if (i == b || (i < s.size() && !isSpace(s[i]))) return false;
  blanks(i);
  m.start = start;
  m.limit = limit;
  m.offset = offset;
  m.inode = inode;
  m.permissions = perms;
  m.device = dev;
  m.path = s.substr(i);
  return true;
}

}  // namespace

std::vector<GperfMapping> parseMappings(std::string_view text) {
  std::vector<GperfMapping> maps;
  size_t pos = 0;
  for (uint32_t line = 0; pos < text.size(); ++line) {
    const size_t eol = text.find('\n', pos);
    const size_t end = eol == text.npos ? text.size() : eol;
    GperfMapping m;
    m.line = line;
    if (parseMapping(text.substr(pos, end - pos), m)) maps.push_back(m);
    pos = eol == text.npos ? text.size() : eol + 1;
  }
  return maps;
}

std::vector<GperfMapping> parseMappings(ir::StackSamples::Reader stacks) {
  auto t = stacks.getMapsText();
  return parseMappings(std::string_view(reinterpret_cast<const char*>(t.begin()), t.size()));
}

std::unique_ptr<Profile> readGperftools(std::span<const uint8_t> data) {
  const size_t size = data.size();
  const uint8_t* p = data.data();
  if (size == 0) fail(kFmt, 0, kUnknown, "empty file: expected a gperftools CPU profile header");
  if (size < 8)
    fail(kFmt, 0, kUnknown,
         "file too short for a header: expected at least 20 bytes, found " + std::to_string(size));
  if (load<4, false>(p) != 0)
    fail(kFmt, 0, kUnknown,
         "header count slot must be 0, found " + hex(load<4, false>(p)) +
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

  Body body;
  const size_t recordsAt = static_cast<size_t>((2 + words) * w);
  if (w == 4) {
    if (bigEndian)
      parseRecords<4, true>(data, recordsAt, body);
    else
      parseRecords<4, false>(data, recordsAt, body);
  } else {
    if (bigEndian)
      parseRecords<8, true>(data, recordsAt, body);
    else
      parseRecords<8, false>(data, recordsAt, body);
  }
  const size_t textAt = body.end;
  if (size - textAt > kMaxData)
    throw Error(Status::limit, kFmt, "mapped-objects text larger than 512 MiB", textAt);
  std::string_view text(reinterpret_cast<const char*>(p + textAt), size - textAt);

  auto message = newMessage(size / 4);
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::GPERFTOOLS);
  root.setFormatVersion("0");
  StringInterner strings;
  strings.build(root.initStrings());
  auto st = root.initStacks();
  st.setSlotBytes(static_cast<uint8_t>(w));
  st.setBigEndian(bigEndian);
  auto hdr = st.initHeaderSlots(static_cast<unsigned>(words + 2));
  for (unsigned i = 0; i < words + 2; ++i) hdr.set(i, loadSlot(p + i * w, w, bigEndian));
  st.setSamplingPeriodUs(loadSlot(p + 3 * w, w, bigEndian));
  auto trailer = st.initTrailerSlots(3);
  for (unsigned i = 0; i < 3; ++i)
    trailer.set(i, loadSlot(p + textAt - 3 * w + i * w, w, bigEndian));
  st.setMapsText(kj::ArrayPtr<const kj::byte>(p + textAt, size - textAt));
  // The range-coded columns last: zstd's fast levels search ever more sparsely through data
  // they find no matches in, and text placed after the columns compressed 3 KB worse.
  body.build(st);

  return std::make_unique<Profile>(std::move(message));
}

namespace {

// Puts the records of a sorted tail (see sortedTail in profile.capnp) back in file order.
void restoreFileOrder(ir::StackSamples::Reader stacks, DecodedStacks& d) {
  auto bad = [](const std::string& what) { throw Error(Status::malformed, "ppk", what); };
  const uint64_t records = d.node.size(), t = stacks.getSortedTail();
  if (t > records)
    bad("stack samples: sortedTail " + std::to_string(t) + " is more than the " +
        std::to_string(records) + " records");
  const size_t first = records - t;
  std::vector<std::pair<uint32_t, uint32_t>> byBucket(t);  // bucket, stored index
  for (size_t i = 0; i < t; ++i) {
    TableHash h(stacks.getSlotBytes());
    for (uint64_t n = d.node[first + i]; n != 0; n = d.parentOf(n)) h.add(d.addressOf(n));
    byBucket[i] = {h.bucket(), static_cast<uint32_t>(i)};
  }
  std::sort(byBucket.begin(), byBucket.end());  // stable: ties keep stored order
  const std::vector<uint64_t> ranks = decodeColumn(stacks.getTailRanks());
  size_t used = 0;
  std::vector<uint64_t> count(t), node(t);
  std::vector<uint32_t> left;
  for (size_t s = 0, e, f = 0; s < t; s = e) {
    for (e = s + 1; e < t && byBucket[e].first == byBucket[s].first;) ++e;
    left.clear();
    for (size_t k = s; k < e; ++k) left.push_back(byBucket[k].second);
    while (!left.empty()) {
      uint64_t v = 0;
      if (left.size() > 1) {
        if (used == ranks.size()) bad("stack samples: tailRanks has too few values");
        v = ranks[used++];
        if (v >= left.size())
          bad("stack samples: tail rank " + std::to_string(v) + " in a run of " +
              std::to_string(left.size()) + " records left");
      }
      const uint32_t i = left[v];
      left.erase(left.begin() + static_cast<ptrdiff_t>(v));
      count[f] = d.count[first + i];
      node[f] = d.node[first + i];
      ++f;
    }
  }
  if (used != ranks.size()) bad("stack samples: tailRanks holds unused values");
  std::copy(count.begin(), count.end(), d.count.begin() + static_cast<ptrdiff_t>(first));
  std::copy(node.begin(), node.end(), d.node.begin() + static_cast<ptrdiff_t>(first));
}

}  // namespace

DecodedStacks decodeStacks(ir::StackSamples::Reader stacks, bool fileOrder) {
  auto bad = [](const std::string& what) { throw Error(Status::malformed, "ppk", what); };
  DecodedStacks d;
  // IR revision 2 writes treeCoding 1 and addressCoding 1 (the pre-release 0s are not read).
  const unsigned tree = stacks.getTreeCoding();
  const unsigned coding = stacks.getAddressCoding();
  if (tree != 1 || coding != 1)
    bad(std::string("stack tree: ") + (tree != 1 ? "treeCoding " : "addressCoding ") +
        std::to_string(tree != 1 ? tree : coding) + " is not the coding IR revision 2 stores (1)");
  if (stacks.getMappings().size() != 0)
    bad("stack samples: mappings are stored (IR revision 2 derives them from mapsText)");
  std::vector<uint64_t> branch = decodeColumn(stacks.getNodeParent());
  d.address = decodeColumn(stacks.getNodeAddress());
  d.count = decodeColumn(stacks.getSampleCount());
  d.node = decodeColumn(stacks.getSampleNode());
  if (d.count.size() != d.node.size())
    bad("stack samples: sampleCount and sampleNode differ in length");
  const size_t nodes = d.address.size();
  if (nodes >= UINT32_MAX) bad("stack tree: more than 2^32 nodes");

  // Records and the parents of the nodes they add.
  d.parent.resize(nodes);
  size_t branches = 0;
  uint64_t newest = 0;
  for (size_t r = 0; r < d.node.size(); ++r) {
    const uint64_t v = d.node[r];
    if (v & 1) {
      if ((v >> 1) == 0 || (v >> 1) > newest)
        bad("stack samples: record " + std::to_string(r) + " names node " + std::to_string(v >> 1) +
            " before it was created");
      d.node[r] = v >> 1;
      continue;
    }
    if ((v >> 1) >= nodes - newest)
      bad("stack samples: record " + std::to_string(r) + " names a node past the last of " +
          std::to_string(nodes));
    const uint64_t added = (v >> 1) + 1;
    if (branches == branch.size())
      bad("stack tree: record " + std::to_string(r) +
          " adds nodes but nodeParent has no value left");
    const uint64_t par = branch[branches++];
    if (par > newest)
      bad("stack tree: record " + std::to_string(r) + " adds nodes below node " +
          std::to_string(par) + ", which no earlier record created");
    d.parent[newest] = par;
    for (uint64_t k = 1; k < added; ++k) d.parent[newest + k] = newest + k;
    newest = d.node[r] = newest + added;
  }
  if (branches != branch.size())
    bad("stack tree: nodeParent holds " + std::to_string(branch.size() - branches) +
        " values no record uses");
  if (newest != nodes)
    bad("stack tree: " + std::to_string(nodes - newest) + " nodes that no record adds");

  // Addresses, given every node's parent.
  const std::vector<uint64_t> escapes = decodeColumn(stacks.getNodeAddressEscapes());
  size_t escaped = 0;
  RecentCallees callees;
  std::vector<uint32_t> lastChild(nodes + 1, 0);
  for (size_t i = 0; i < nodes; ++i) {
    const uint64_t id = i + 1;
    const uint64_t par = d.parent[i];
    const uint32_t sib = lastChild[par];
    const uint64_t v = d.address[i];
    const uint64_t parentPc = par ? d.address[par - 1] : 0;
    const uint64_t ref = sib ? d.address[sib - 1] : parentPc;
    if (v == RecentCallees::kEscape && escaped == escapes.size())
      bad("stack tree: more escaped addresses than nodeAddressEscapes holds");
    const uint64_t e = v == RecentCallees::kEscape ? escapes[escaped++] : 0;
    if (!callees.decode(parentPc, v, ref, e, d.address[i]))
      bad("stack tree: node " + std::to_string(id) + " names recent callee " + std::to_string(v) +
          " of a call site with fewer");
    lastChild[par] = static_cast<uint32_t>(id);
  }
  if (escaped != escapes.size()) bad("stack tree: nodeAddressEscapes holds unused addresses");
  if (stacks.getSortedTail() > kTailMax)
    bad("stack samples: sortedTail " + std::to_string(stacks.getSortedTail()) +
        " is more than the " + std::to_string(kTailMax) + " records a reader sorts");
  if (fileOrder && stacks.getSortedTail() != 0) restoreFileOrder(stacks, d);
  return d;
}

std::string writeGperftools(const Profile& profile, const GperfWriteOptions& options) {
  auto root = profile.root();
  if (root.getFormat() != ir::Format::GPERFTOOLS)
    throw Error(Status::unsupported, kFmt,
                "the profile holds no stack samples, so it cannot be written as a gperftools "
                "CPU profile");
  auto st = root.getStacks();
  unsigned w = options.slotBytes ? options.slotBytes : st.getSlotBytes();
  if (w != 4 && w != 8)
    throw Error(Status::invalidArgument, kFmt,
                "slot width must be 4 or 8 bytes, not " + std::to_string(w));
  bool be = options.byteOrder == GperfWriteOptions::ByteOrder::asRead
                ? st.getBigEndian()
                : options.byteOrder == GperfWriteOptions::ByteOrder::big;
  DecodedStacks d = decodeStacks(st);
  auto hdr = st.getHeaderSlots();
  auto trailer = st.getTrailerSlots();
  auto text = st.getMapsText();
  if (hdr.size() < 5) throw Error(Status::malformed, "ppk", "gperftools header has < 5 slots");
  if (trailer.size() != 3)
    throw Error(Status::malformed, "ppk", "gperftools trailer is not 3 slots");

  // Depth of every node (its chain length) and the total size.
  std::vector<uint32_t> depth(d.nodes() + 1, 0);
  for (size_t n = 1; n <= d.nodes(); ++n) depth[n] = depth[d.parentOf(n)] + 1;
  // A few hundred bytes of IR can describe gigabytes of file (many records naming a deep
  // node). Real profiles write 40-70 bytes of file per byte of these columns, so outputs beyond
  // 4096 times them (and 256 MiB) are refused, not left to the allocator (or to the kernel's
  // out-of-memory killer after an overcommitted allocation).
  uint64_t irBytes = text.size();
  for (auto column : {st.getNodeParent(), st.getNodeAddress(), st.getNodeAddressEscapes(),
                      st.getSampleCount(), st.getSampleNode(), st.getTailRanks()})
    for (auto chunk : column.getChunks()) irBytes += chunk.size();
  uint64_t maxBytes = std::max<uint64_t>(uint64_t{256} << 20, irBytes * 4096);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  maxBytes = uint64_t{256} << 20;  // the fuzzers' memory limit
#endif
  if (options.maxBytes) maxBytes = std::min(maxBytes, options.maxBytes);
  uint64_t bytes = (hdr.size() + 3) * w + text.size();
  for (uint64_t n : d.node) {
    bytes += (2 + depth[n]) * w;
    if (bytes > maxBytes)
      throw Error(Status::limit, kFmt,
                  "the profile would be larger than " + std::to_string(maxBytes) +
                      " bytes as a file (the limit for " + std::to_string(irBytes) +
                      " bytes of stack columns)");
  }

  if (w == 4) {
    auto check = [](uint64_t v, const std::string& what) {
      if (v > UINT32_MAX)
        throw Error(Status::unsupported, kFmt,
                    what + " " + hex(v) +
                        " does not fit a 4-byte slot; cannot write a 32-bit "
                        "profile");
    };
    for (unsigned i = 0; i < hdr.size(); ++i) check(hdr[i], "header slot " + std::to_string(i));
    for (unsigned i = 0; i < 3; ++i) check(trailer[i], "trailer slot " + std::to_string(i));
    for (size_t r = 0; r < d.count.size(); ++r)
      check(d.count[r], "sample count of record " + std::to_string(r));
    for (size_t n = 0; n < d.address.size(); ++n) check(d.address[n], "address");
  }

  std::string out;
  out.resize(bytes);
  char* o = out.data();
  auto put = [&](uint64_t v) {
    if (w == 4) {
      uint32_t x = static_cast<uint32_t>(v);
      if (be != (std::endian::native == std::endian::big)) x = __builtin_bswap32(x);
      std::memcpy(o, &x, 4);
    } else {
      if (be != (std::endian::native == std::endian::big)) v = __builtin_bswap64(v);
      std::memcpy(o, &v, 8);
    }
    o += w;
  };
  for (unsigned i = 0; i < hdr.size(); ++i) put(hdr[i]);
  for (size_t r = 0; r < d.count.size(); ++r) {
    uint64_t n = d.node[r];
    put(d.count[r]);
    put(depth[n]);
    for (; n != 0; n = d.parentOf(n)) put(d.addressOf(n));
  }
  for (unsigned i = 0; i < 3; ++i) put(trailer[i]);
  if (text.size()) std::memcpy(o, text.begin(), text.size());
  return out;
}

}  // namespace profpack

namespace profpack {

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
