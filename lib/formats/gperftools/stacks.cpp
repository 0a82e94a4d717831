#include "formats/gperftools/stacks.h"

#include <algorithm>
#include <future>
#include <system_error>
#include <unordered_map>

#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "util/pairmap.h"
#include "util/text.h"

namespace profpack {

namespace {

// `columns`: false if the stack columns will not be read (a deferred part stays unbuilt).
ir::StackSamples::Reader stacksOf(const Profile& profile, bool columns = true) {
  if (profile.format() != ir::Format::GPERFTOOLS)
    throw Error(Status::unsupported, "", "stack-sample queries need a gperftools CPU profile");
  return (columns ? profile.root() : profile.partialRoot()).getStacks();
}

// Address -> mapping index lookup over the mappings sorted by start.
class MappingIndex {
 public:
  explicit MappingIndex(ir::StackSamples::Reader st) : maps_(parseMappings(st)) {
    for (unsigned i = 0; i < maps_.size(); ++i) order_.push_back(i);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](unsigned a, unsigned b) { return maps_[a].start < maps_[b].start; });
    uint64_t m = 0;
    for (unsigned i : order_) maxLimit_.push_back(m = std::max(m, maps_[i].limit));
  }
  int64_t find(uint64_t address) const {
    auto it = std::upper_bound(order_.begin(), order_.end(), address,
                               [&](uint64_t a, unsigned i) { return a < maps_[i].start; });
    // The last mapping starting at or below the address; earlier ones may still hold it if
    // mappings overlap, so look back while they could.
    while (it != order_.begin()) {
      --it;
      if (address < maps_[*it].limit) return *it;
      if (maxLimit_[static_cast<size_t>(it - order_.begin())] <= address) break;
    }
    return -1;
  }
  std::string name(uint64_t address, int64_t m) const {
    std::string s;
    if (m >= 0) {
      const GperfMapping& map = maps_[static_cast<size_t>(m)];
      if (!map.path.empty()) {
        s = map.path;
        s += '+';
        appendHex(s, address - map.start + map.offset);
        return s;
      }
    }
    appendHex(s, address);
    return s;
  }
  const GperfMapping& at(int64_t m) const { return maps_[static_cast<size_t>(m)]; }
  size_t size() const { return maps_.size(); }

 private:
  std::vector<GperfMapping> maps_;
  std::vector<unsigned> order_;
  std::vector<uint64_t> maxLimit_;  // largest limit among order_[0..i]
};

// Addresses numbered in order of first appearance, into `addresses` (number i at [i]). A
// table of 4-byte slots (a number + 1; 0: empty) compared through `addresses`: a tree's 700,000
// nodes have some 70,000 addresses, whose table stays in cache where PairMap's 32-byte slots
// (for pairs) did not, and one mixing of the address is enough. The mixing is seeded as
// PairMap's is, so that a file cannot choose addresses that share a slot.
class AddressNumbers {
 public:
  explicit AddressNumbers(std::vector<uint64_t>& addresses)
      : addresses_(addresses), seed_(PairMap::seed()) {}
  // Below 2^32: numbers are at most the tree's nodes, fewer than 2^32.
  uint32_t numberOf(uint64_t a) {
    if (2 * (addresses_.size() + 1) > slots_.size()) grow();
    for (size_t i = slotOf(a);; i = (i + 1) & mask_) {
      const uint32_t s = slots_[i];
      if (s == 0) {
        addresses_.push_back(a);
        slots_[i] = static_cast<uint32_t>(addresses_.size());
        return slots_[i] - 1;
      }
      if (addresses_[s - 1] == a) return s - 1;
    }
  }

 private:
  size_t slotOf(uint64_t a) const {
    uint64_t h = a ^ seed_;  // MurmurHash3's finalizer
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return static_cast<size_t>(h ^ (h >> 33)) & mask_;
  }
  void grow() {
    slots_.assign(slots_.empty() ? 1024 : 2 * slots_.size(), 0);
    mask_ = slots_.size() - 1;
    for (size_t k = 0; k < addresses_.size(); ++k) {
      size_t i = slotOf(addresses_[k]);
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = static_cast<uint32_t>(k + 1);
    }
  }
  std::vector<uint64_t>& addresses_;
  const uint64_t seed_;
  std::vector<uint32_t> slots_;
  size_t mask_ = 0;
};

// What the reader handed the profile, if it is its tree (else null: the IR is decoded).
ReadStacks* readersTree(Profile::Decoded* read) {
  auto* r = dynamic_cast<ReadStacks*>(read);
  return r && r->tree ? r : nullptr;
}

// The prefix tree with per-node sample totals and, for a dense key per node, whether the node
// is the first on its path from the root to carry that key.
struct Tree {
  // The tree's columns, without the records (count, node): `here` sums them. The reader's,
  // shared with its profile, or else decoded here.
  std::shared_ptr<const DecodedStacks> tree;
  const DecodedStacks& d;
  std::vector<uint64_t> here;     // samples of records ending at node n (index n, 0 = root)
  std::vector<uint64_t> subtree;  // samples of records whose chain passes through node n
  std::vector<uint32_t> childStart, children;
  std::vector<uint32_t> addressId;  // per node (index n): the number of its address
  std::vector<uint64_t> addresses;  // per number: the address

  // `read`: what the reader knew of `st`, if the profile still had it (else `st` is decoded).
  Tree(ir::StackSamples::Reader st, std::unique_ptr<Profile::Decoded> read)
      : tree(treeOf(st, readersTree(read.get()))), d(*tree) {
    if (ReadStacks* r = readersTree(read.get())) {
      here = std::move(r->samples);
    } else {
      here.assign(d.nodes() + 1, 0);
      for (size_t i = 0; i < d.node.size(); ++i) here[d.node[i]] += d.count[i];
    }
    const size_t n = d.nodes();
    if (here.size() != n + 1 || d.address.size() != n)
      throw Error(Status::internal, "", "the reader's stack tree does not match its IR");
    // Each figure is kept per address: number them once, in order of first appearance. That
    // reads only the tree's addresses, and a large tree's are numbered on a second thread while
    // this one sums and links the nodes below (both cores: the numbering was half of the
    // tree's time, and the model waits for the tree before anything else).
    auto number = [this, n] {
      AddressNumbers ids(addresses);
      addressId.assign(n + 1, 0);
      for (size_t i = 1; i <= n; ++i) addressId[i] = ids.numberOf(d.addressOf(i));
    };
    std::future<void> numbering;
    if (n >= 65536) {
      try {
        numbering = std::async(std::launch::async, number);
      } catch (const std::system_error&) {
        // no thread to be had: numbered below, here
      }
    }
    subtree = here;
    for (size_t i = n; i >= 1; --i) subtree[d.parentOf(i)] += subtree[i];
    childStart.assign(n + 2, 0);
    for (size_t i = 1; i <= n; ++i) ++childStart[d.parentOf(i) + 1];
    for (size_t i = 1; i < childStart.size(); ++i) childStart[i] += childStart[i - 1];
    children.resize(n);
    std::vector<uint32_t> fill(childStart.begin(), childStart.end() - 1);
    for (size_t i = 1; i <= n; ++i) children[fill[d.parentOf(i)]++] = static_cast<uint32_t>(i);
    if (numbering.valid())
      numbering.get();
    else
      number();
  }

  static std::shared_ptr<const DecodedStacks> treeOf(ir::StackSamples::Reader st,
                                                     const ReadStacks* read) {
    if (read) return read->tree;
    return std::make_shared<const DecodedStacks>(decodeStacks(st, /*fileOrder=*/false));
  }

  // first[n] = true if no proper ancestor of n has key[n]. Keys are dense (< numKeys).
  // (Bytes, not bits: the packing of std::vector<bool> was a third of the walk; a leaf is
  // looked at without being entered.)
  std::vector<uint8_t> firstOnPath(const std::vector<uint32_t>& key, size_t numKeys) const {
    std::vector<uint8_t> first(key.size(), 0);
    std::vector<uint32_t> active(numKeys, 0);
    struct Frame {
      uint32_t node, next, end;
    };
    std::vector<Frame> stack{{0, childStart[0], childStart[1]}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.end) {
        if (f.node != 0) --active[key[f.node]];
        stack.pop_back();
        continue;
      }
      const uint32_t c = children[f.next++];
      const uint32_t from = childStart[c], to = childStart[c + 1];
      if (from == to) {
        first[c] = active[key[c]] == 0;
        continue;
      }
      first[c] = active[key[c]]++ == 0;
      stack.push_back({c, from, to});
    }
    return first;
  }
};

// A dense key per node: its (caller address, address) edge, numbered from 1 in order of first
// appearance (roots have no edge: 0). Returns the edges by key, as address numbers (index 0
// unused).
std::vector<std::pair<uint32_t, uint32_t>> keyEdges(const Tree& t, std::vector<uint32_t>& key) {
  PairMap32 ids;  // 32-bit: with 64-bit slots this was the model's peak (13 MB of 50, a 50 MB
                  // profile of 530,000 nodes)
  std::vector<std::pair<uint32_t, uint32_t>> pairs(1);
  key.assign(t.d.nodes() + 1, 0);
  for (size_t n = 1; n <= t.d.nodes(); ++n) {
    uint64_t p = t.d.parentOf(n);
    if (p == 0) continue;
    bool added = false;
    const uint32_t caller = t.addressId[p], callee = t.addressId[n];
    key[n] = static_cast<uint32_t>(
        ids.findOrInsert(caller, callee, static_cast<uint32_t>(pairs.size()), added));
    if (added) pairs.emplace_back(caller, callee);
  }
  return pairs;
}

}  // namespace

struct StackTree::Impl {
  // With the reader's tree, only the mapped-objects text is read from the IR.
  Impl(const Profile& profile, std::unique_ptr<Profile::Decoded> read)
      : profile(profile),
        fromReader(readersTree(read.get()) != nullptr),
        st(stacksOf(profile, !fromReader)),
        t(st, std::move(read)) {}
  const Profile& profile;
  const bool fromReader;  // the tree is the reader's (ReadStacks)
  ir::StackSamples::Reader st;
  Tree t;
};

bool StackTree::giveBack() {
  if (!impl_->fromReader) return false;
  // `here` is the reader's samples per node, unchanged.
  auto back = std::make_unique<ReadStacks>();
  back->tree = impl_->t.tree;
  back->samples = std::move(impl_->t.here);
  const Profile& profile = impl_->profile;
  impl_.reset();
  profile.returnDecoded(std::move(back));
  return true;
}

StackTree::StackTree(const Profile& profile)
    : impl_(std::make_unique<Impl>(profile, profile.takeDecoded())) {}
StackTree::~StackTree() = default;

size_t StackTree::nodes() const { return impl_->t.d.nodes(); }
size_t StackTree::addressCount() const { return impl_->t.addresses.size(); }

std::vector<AddressSamples> samplesByAddress(const Profile& profile) {
  return StackTree(profile).samplesByAddress();
}

std::vector<CallEdgeSamples> StackTree::callEdges() const {
  const Tree& t = impl_->t;
  std::vector<uint32_t> key;
  const auto pairs = keyEdges(t, key);
  const std::vector<uint8_t> first = t.firstOnPath(key, pairs.size());
  std::vector<uint64_t> samples(pairs.size(), 0);
  for (size_t n = 1; n <= t.d.nodes(); ++n)
    if (key[n] != 0 && first[n]) samples[key[n]] += t.subtree[n];
  std::vector<CallEdgeSamples> out;
  for (size_t k = 1; k < pairs.size(); ++k)
    if (samples[k] > 0) out.push_back({pairs[k].first, pairs[k].second, samples[k]});
  return out;
}

ChainSamples StackTree::chainSamples() const {
  const Tree& t = impl_->t;
  const size_t nodes = t.d.nodes();
  // Each chain is written from its leaf up, in place: its length is its node's depth (a
  // parent is numbered before its children).
  std::vector<uint32_t> depth(nodes + 1, 0);
  size_t frames = 0, chains = 0;
  for (size_t n = 1; n <= nodes; ++n) {
    depth[n] = depth[t.d.parentOf(n)] + 1;
    if (t.here[n] != 0) frames += depth[n], ++chains;
  }
  ChainSamples out;
  out.frames.resize(frames);
  out.start.reserve(chains + 1);
  out.samples.reserve(chains);
  size_t end = 0;
  for (size_t n = 1; n <= nodes; ++n) {
    if (t.here[n] == 0) continue;
    end += depth[n];
    size_t i = end;
    for (uint64_t k = n; k != 0; k = t.d.parentOf(k)) out.frames[--i] = t.addressId[k];
    out.start.push_back(end);
    out.samples.push_back(t.here[n]);
  }
  return out;
}

std::vector<AddressSamples> StackTree::samplesByAddress() const {
  std::vector<AddressSamples> out;
  out.reserve(impl_->t.addresses.size());
  forEachAddress([&](AddressSamples& a) { out.push_back(std::move(a)); });
  return out;
}

void StackTree::forEachAddress(const std::function<void(AddressSamples&)>& each) const {
  const Tree& t = impl_->t;
  const size_t n = t.addresses.size();
  // The figures per address number, then the numbers sorted by self, then inclusive (both
  // descending), then address; each row's strings are made as it is handed over.
  struct Figures {
    uint64_t self = 0, inclusive = 0;
  };
  std::vector<Figures> fig(n);
  {
    const std::vector<uint8_t> first = t.firstOnPath(t.addressId, n);
    for (size_t k = 1; k <= t.d.nodes(); ++k) {
      Figures& f = fig[t.addressId[k]];
      f.self += t.here[k];
      if (first[k]) f.inclusive += t.subtree[k];
    }
  }
  std::vector<uint32_t> order(n);
  for (size_t id = 0; id < n; ++id) order[id] = static_cast<uint32_t>(id);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (fig[a].self != fig[b].self) return fig[a].self > fig[b].self;
    if (fig[a].inclusive != fig[b].inclusive) return fig[a].inclusive > fig[b].inclusive;
    return t.addresses[a] < t.addresses[b];
  });
  MappingIndex maps(impl_->st);
  for (uint32_t id : order) {
    const uint64_t a = t.addresses[id];
    const int64_t m = maps.find(a);
    AddressSamples row{a,
                       id,
                       maps.name(a, m),
                       m,
                       m >= 0 ? std::string(maps.at(m).path) : "",
                       fig[id].self,
                       fig[id].inclusive};
    each(row);
  }
}

}  // namespace profpack
