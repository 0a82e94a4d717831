// How the IR stores a gperftools profile's stacks (StackSamples in lib/ir/profile.capnp):
// the coders the reader uses to store them, shared with the decoder in storage.cpp.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "ir/column.h"
#include "util/block_feed.h"
#include "util/pairmap.h"

namespace profpack::gperf {

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
  // The address of each node, after build(): node n at [n - 1].
  std::vector<uint64_t> takeAddresses() {
    pcs_.erase(pcs_.begin());
    return std::move(pcs_);
  }

 private:
  RecentCallees callees_;
  ColumnWriter address_{kAdaptive}, escapes_{kAdaptive};
  std::vector<uint64_t> pcs_{0};        // by node id; [0] = the root
  std::vector<uint32_t> lastChild_{0};  // by node id: newest child, 0 = none
};

// An AddressColumn fed node by node by the reader's parsing thread and, for a large profile,
// encoded on a thread of its own that trails the parser: the parser only stores each node's
// parent and address in blocks and publishes them every few thousand nodes (reading the 50 MB
// bench profile takes an eighth less time). Where no thread can be started, or with
// start(false), the column is encoded as nodes are added.
class AddressFeed {
 public:
  // `maxNodes`: at most this many add()s will follow.
  void start(bool threaded, size_t maxNodes) {
    if (threaded)
      feed_.start(maxNodes, [this](uint64_t i, uint64_t) {
        const Entry& e = feed_.at(i);
        column_.add(e.parent, e.pc);
      });
  }
  void add(uint64_t parent, uint64_t pc) {
    if (!feed_.threaded()) return column_.add(parent, pc);
    feed_.push({parent, pc});
  }
  // Waits until every node added is encoded; rethrows what stopped the encoding thread.
  AddressColumn& finish() {
    feed_.finish();
    return column_;
  }

 private:
  struct Entry {
    uint64_t parent, pc;
  };
  AddressColumn column_;
  BlockFeed<Entry> feed_;  // last: its thread stops before the column goes
};

// A record as the parser hands it over: its count, the node its chain ends at, and where it adds
// nodes to the tree (`added` > 0), how many, below which node. Node ids are below 2^32.
struct RecordEntry {
  uint64_t count;
  uint32_t node, added, parent;
};

struct Body;

// The records' part of the IR and of the model (Body::apply) done by a thread of its own that
// trails the parser, for a large profile: the parser only stores each record's entry in blocks
// and publishes them every few thousand records, as AddressFeed does with the nodes. Their
// columns and the samples per node were a sixth of the parsing thread's instructions on the
// 50 MB bench profile, and its other core mostly waits. Where no thread can be started, or
// with start(false), each record is applied as it is added.
class RecordFeed {
 public:
  explicit RecordFeed(Body& body) : body_(body) {}

  // `maxRecords`: at most this many add()s will follow.
  void start(bool threaded, size_t maxRecords);
  [[gnu::always_inline]] void add(const RecordEntry& e) {
    if (!feed_.threaded()) return applyNow(e);
    feed_.push(e);
  }
  // Waits until every record added is applied; rethrows what stopped the thread.
  void finish() { feed_.finish(); }

 private:
  void applyNow(const RecordEntry& e);

  Body& body_;
  BlockFeed<RecordEntry> feed_;
};

// The tree and the records as the IR codes them (see StackSamples in profile.capnp, treeCoding
// 1): for each record that adds nodes, the node its new nodes branch from; addresses by
// RecentCallees; a record's node as the number of nodes it added or as an earlier node's id.
struct Body {
  ColumnWriter branch{kAdaptive}, count{kAdaptive}, node{kAdaptive};
  AddressFeed address;
  uint64_t newest = 0;  // the largest node id a record named so far
  size_t end = 0;       // byte offset just past the trailer

  // By node id (see ReadStacks). Parents and addresses are in the parse's tree nodes.
  std::vector<uint64_t> samples{0};
  // With deferAddresses the address column is encoded by whoever calls build() later, from
  // the tree the parser keeps; else `address` encodes it as nodes are added.
  bool deferAddresses = false;

  // A node the record being added adds (addRecord's `added` counts them).
  void addNode(uint64_t par, uint64_t addr) {
    if (!deferAddresses) address.add(par, addr);
  }
  // A record with `c` samples ending at node `n`; where it adds nodes (`added` > 0), they
  // branch from node `par`.
  void addRecord(uint64_t c, uint32_t n, uint32_t added, uint32_t par) {
    records.add({c, n, added, par});
  }
  // What addRecord stores, on RecordFeed's thread or else at once.
  void apply(const RecordEntry& e) {
    if (e.added) {
      branch.push(e.parent);
      for (uint32_t k = 0; k < e.added; ++k) samples.push_back(0);  // resize() took twice as long
    }
    samples[e.node] += e.count;  // e.node names a node added by now
    count.push(e.count);
    if (e.node > newest) {
      node.push(2 * (e.node - newest - 1));
      newest = e.node;
    } else {
      node.push(2 * uint64_t{e.node} + 1);
    }
  }
  void prefetchSamples(uint64_t n) const {
    if (n < samples.size()) __builtin_prefetch(samples.data() + n, 1);
  }
  // The last sortedTail records were added in an order of the reader's choosing (see
  // sortedTail in profile.capnp); `ranks` restores file order.
  uint64_t sortedTail = 0;
  ColumnWriter ranks{kAdaptive};

  // `addressColumn`: address.finish(), or with deferAddresses the column encoded since.
  void build(ir::StackSamples::Builder st, AddressColumn& addressColumn) {
    branch.build(st.initNodeParent());
    st.setTreeCoding(1);
    if (sortedTail) {
      st.setSortedTail(sortedTail);
      ranks.build(st.initTailRanks());
    }
    addressColumn.build(st);
    count.build(st.initSampleCount());
    node.build(st.initSampleNode());
  }

  // Last: its thread writes the members above, so it is stopped (destroyed) before them.
  RecordFeed records{*this};
};

inline void RecordFeed::applyNow(const RecordEntry& e) { body_.apply(e); }

constexpr size_t kTailMax = 4096;

}  // namespace profpack::gperf
