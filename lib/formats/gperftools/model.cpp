// The model of a gperftools CPU profile: each program counter is a function named object+offset
// (or its hex address), object = its mapping; one event "samples"; self = samples with it
// innermost, inclusive = samples with it anywhere in the chain (once per record); arcs from
// adjacent frames, once per record. Locations are the same program counters in their mappings.

#include "formats/gperftools/model.h"

#include <algorithm>
#include <future>
#include <system_error>

#include "error.h"
#include "formats/gperftools/gperftools.h"
#include "formats/gperftools/stacks.h"

namespace profpack {

namespace {

class StackSource : public ModelSource {
 public:
  StackSource(const Profile& profile, bool callEdges, bool frames)
      : profile_(profile), callEdges_(callEdges), frames_(frames) {}

  uint32_t capabilities() const override { return kCapCallArcs | kCapAddresses | kCapStacks; }

  void functions(FunctionLayer& out) override {
    out.eventNames = {"samples"};
    // partialRoot(): a profile read with deferIR keeps its stack columns unbuilt; the model
    // needs none of them (the tree comes from the reader, or else from StackTree's decoding).
    out.samplePeriodNanos = profile_.partialRoot().getStacks().getSamplingPeriodUs() * 1000;
    tree_ = std::make_unique<StackTree>(profile_);
    // The call edges, or where nobody reads them the chains of the stack layer, and the figures
    // per address are independent walks of the tree: the first is done on a second thread
    // meanwhile (a fifth of the model's time on a 50 MB profile). A small tree is quicker
    // walked twice than a thread started; where no thread can be had, it is walked later, here.
    const auto launch = tree_->nodes() >= 65536 ? std::launch::async : std::launch::deferred;
    std::future<std::vector<CallEdgeSamples>> edges;
    auto findEdges = [tree = tree_.get()] { return tree->callEdges(); };
    auto findChains = [tree = tree_.get()] { return tree->chainSamples(); };
    try {
      if (callEdges_)
        edges = std::async(launch, findEdges);
      else
        chains_ = std::async(launch, findChains);
    } catch (const std::system_error&) {
      if (callEdges_)
        edges = std::async(std::launch::deferred, findEdges);
      else
        chains_ = std::async(std::launch::deferred, findChains);
    }
    // Reserved, and each row's names moved in as it is made: grown by doubling, the rows were
    // held twice at the model's peak (3 MB of the layer's 10 MB for a 50 MB profile).
    const size_t addresses = tree_->addressCount();
    out.functions.reserve(addresses);
    out.self.reserve(addresses);  // one event
    out.inclusive.reserve(addresses);
    addresses_.reserve(addresses);
    functionOfId_.resize(addresses);
    tree_->forEachAddress([&](AddressSamples& a) {
      const uint64_t f = out.addFunction({std::move(a.location), "", std::move(a.object)});
      out.self[f] = a.self;
      out.inclusive[f] = a.inclusive;
      addresses_.push_back({a.address, a.mapping, f, a.self});
      functionOfId_[a.id] = f;
    });
    // Edges: an edge counts once per record even if recursion repeats it. Their ends are
    // address numbers (a table by address was 6 MB of the model's peak for a 50 MB profile).
    if (callEdges_) {
      const std::vector<CallEdgeSamples> found = edges.get();
      out.edges.reserve(found.size());
      out.edgeCosts.reserve(found.size());  // one event
      for (const CallEdgeSamples& e : found)
        out.edgeCost(out.addEdge(functionOfId_.at(e.caller), functionOfId_.at(e.callee), 0))[0] +=
            e.samples;
    }
    // The stack layer needs nothing of the tree but its chains: a large tree goes before the
    // other layers are built (its figures per node are a large part of the model's memory).
    // With the call edges found, the tree is needed again only if the stack layer is asked
    // for: the reader's goes back to the profile until then (one decoded from the IR stays).
    if (chains_.valid() && launch == std::launch::async) {
      chains_.wait();
      tree_.reset();
    } else if (callEdges_ && launch == std::launch::async && tree_->giveBack()) {
      tree_.reset();
    }
  }

  // Every program counter, then (call sites) every one that is a return address in some chain,
  // moved back one byte into its call instruction, as pprof does on import.
  void locations(LocationLayer& out) override {
    for (const GperfMapping& m : parseMappings(profile_.partialRoot().getStacks()))
      out.mappings.push_back({m.start, m.limit, m.offset, std::string(m.path)});
    sortAddresses();
    for (const Address& a : addresses_) {
      out.locations.push_back({a.address, a.mapping, static_cast<int64_t>(a.function), 0});
      out.self.push_back(a.self);
    }
    for (const Address& a : addresses_) {
      Location site{a.address ? a.address - 1 : 0, a.mapping, static_cast<int64_t>(a.function), 0};
      site.callSite = true;
      out.locations.push_back(site);
      out.self.push_back(0);
    }
  }

  void stacks(StackLayer& out) override {
    // Locations are 32-bit indexes in the layer: each address and its call site.
    if (2 * addresses_.size() > UINT32_MAX)
      throw Error(Status::limit, "gperftools", "too many distinct addresses for a stack layer");
    if (!chains_.valid() && !tree_) tree_ = std::make_unique<StackTree>(profile_);
    ChainSamples c = chains_.valid() ? chains_.get() : tree_->chainSamples();
    tree_.reset();
    // Location of each function: its program counter's rank (the locations layer's order);
    // a caller's frame: its call site, as many locations further on.
    sortAddresses();
    std::vector<uint64_t> locationOf(addresses_.size());
    for (size_t i = 0; i < addresses_.size(); ++i)
      if (addresses_[i].function < locationOf.size()) locationOf[addresses_[i].function] = i;
    // Per address number, its location (a leaf's; a caller's is its call site, as many
    // further on), looked up once here rather than through two tables for each of the
    // millions of frames.
    std::vector<uint32_t> locationOfId(functionOfId_.size());
    for (size_t id = 0; id < functionOfId_.size(); ++id)
      locationOfId[id] = static_cast<uint32_t>(locationOf.at(functionOfId_[id]));
    const auto callSite = static_cast<uint32_t>(addresses_.size());
    // The chains' address numbers become function indexes where they are (the layer's largest
    // column is not held twice); asked for locations alone, they become locations there.
    if (frames_) out.locations.resize(c.frames.size());
    auto map = [&](size_t from, size_t to) {  // chains [from, to)
      for (size_t s = from; s < to; ++s) {
        const uint64_t end = std::min<uint64_t>(c.start[s + 1], c.frames.size());
        for (uint64_t i = c.start[s]; i < end; ++i) {
          const uint32_t id = c.frames[i];
          const uint32_t l = locationOfId.at(id) + (i + 1 < c.start[s + 1] ? callSite : 0);
          if (frames_) {
            c.frames[i] = static_cast<uint32_t>(functionOfId_[id]);
            out.locations[i] = l;
          } else {
            c.frames[i] = l;
          }
        }
      }
    };
    // Millions of frames (2.5 million for a 50 MB profile) are mapped on both cores, the
    // second taking the chains of the first half of the frames: nothing else runs meanwhile.
    const size_t chains = c.start.size() - 1;
    std::future<void> half;
    size_t split = 0;
    if (c.frames.size() >= (size_t{1} << 20)) {
      split = static_cast<size_t>(
          std::lower_bound(c.start.begin(), c.start.end() - 1, c.frames.size() / 2) -
          c.start.begin());
      try {
        half = std::async(std::launch::async, map, 0, split);
      } catch (const std::system_error&) {
        split = 0;  // no thread: all of them here
      }
    }
    map(split, chains);
    if (half.valid()) half.get();
    (frames_ ? out.frames : out.locations) = std::move(c.frames);
    out.start = std::move(c.start);
    out.values = std::move(c.samples);
    functionOfId_ = {};  // the layers that map address numbers are made
  }

  Summary summary() override {
    auto root = profile_.root();
    auto st = root.getStacks();
    Summary s;
    s.formatVersion = root.getFormatVersion().cStr();
    const size_t strings = profile_.strings().size();
    s.strings = strings > 0 ? strings - 1 : 0;
    s.records = st.getSampleCount().getCount();  // sample records
    s.objects = parseMappings(st).size();        // mappings
    return s;
  }

 private:
  struct Address {
    uint64_t address;
    int64_t mapping;
    uint64_t function, self;
  };
  void sortAddresses() {
    std::sort(addresses_.begin(), addresses_.end(), [](const Address& a, const Address& b) {
      return a.mapping != b.mapping ? a.mapping < b.mapping : a.address < b.address;
    });
  }

  const Profile& profile_;
  std::vector<Address> addresses_;  // filled with the function layer, which the model builds first
  std::vector<uint64_t> functionOfId_;  // per address number of tree_: its function
  const bool callEdges_;
  const bool frames_;  // ModelOptions::stackFrames
  // Decoded by the function layer, kept for the stack layer where its chains are not found yet.
  std::unique_ptr<StackTree> tree_;
  std::future<ChainSamples> chains_;  // found with the function layer where no edges are
};

}  // namespace

std::unique_ptr<ModelSource> stackModel(const Profile& profile, const ModelOptions& options) {
  return std::make_unique<StackSource>(profile, options.callEdges, options.stackFrames);
}

}  // namespace profpack
