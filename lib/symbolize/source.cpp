// The model source of a symbolized profile. Addresses: every location takes the inline chain
// of its address (a caller's frame: of its return address - 1); functions are the chains'
// names, per object; stacks are the inner stacks with each frame expanded into its chain.
// Function ids: each function takes the name, file and line of its entry.

#include "symbolize/source.h"

#include <algorithm>
#include <map>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "error.h"
#include "symbolize/table.h"
#include "util/pairmap.h"
#include "util/tuple_hash.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "symbols";

bool anyCost(const uint64_t* cost, size_t ne) {
  for (size_t e = 0; e < ne; ++e)
    if (cost[e] != 0) return true;
  return false;
}

using CostByPair = std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>>;

class SymbolizedSource : public ModelSource {
 public:
  SymbolizedSource(std::unique_ptr<ModelSource> inner, std::shared_ptr<const SymbolTable> table)
      : inner_(std::move(inner)), tablePtr_(std::move(table)), table_(*tablePtr_) {}

  uint32_t capabilities() const override {
    const uint32_t inner = inner_->capabilities();
    // Inline chains give arcs where the source has none (an inlined function's caller).
    return inner | kCapNames | kCapLines | ((inner & kCapFunctionIds) ? 0u : kCapCallArcs);
  }

  void functions(FunctionLayer& out) override {
    if (inner_->capabilities() & kCapFunctionIds) {
      renameIds(out);
      return;
    }
    FunctionLayer in;
    inner_->functions(in);
    inner_->locations(locations_);
    // Each symbolized mapping's load bias, so that writers can give the file's own addresses.
    for (size_t m = 0; m < locations_.mappings.size() && m < table_.loadBias.size(); ++m)
      if (!locations_.mappings[m].linkTime) locations_.mappings[m].loadBias = table_.loadBias[m];
    out.eventNames = in.eventNames;
    out.eventLongNames = in.eventLongNames;
    out.unitsPerSecond = in.unitsPerSecond;
    out.eventUnitsPerSecond = in.eventUnitsPerSecond;
    out.samplePeriodNanos = in.samplePeriodNanos;
    out.timelineUnitsPerSecond = in.timelineUnitsPerSecond;
    out.baseTotals = in.baseTotals;
    out.threads = in.threads;
    out.sharedThreads = in.sharedThreads;
    out.description = in.description;
    ne_ = out.events();
    inner_ = releaseAfterStacks(std::move(inner_), in, out);
  }

  Summary summary() override {
    Summary s = summary_;
    if (!renamed_) s.functions = functionCount_;
    s.files = files_;
    return s;
  }
  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override {
    out = std::move(lines_);
  }
  void functionLines(FunctionLineLayer& out) override { out = std::move(functionLines_); }
  void locations(LocationLayer& out) override { out = std::move(locations_); }
  void stacks(StackLayer& out) override {
    if (renamed_)
      inner_->stacks(out);
    else
      out = std::move(stacks_);
  }
  uint64_t timelineOrigin() override { return inner_->timelineOrigin(); }
  void spans(SpanSink& sink) override;

 private:
  // A function's key: name, object, and what tells functions of one name in one object apart
  // (SymbolFrame::declaration; 0 for the inner source's own rows).
  using FunctionKey = std::tuple<std::string_view, std::string_view, uint64_t>;
  // One chain of functions of this model, outermost first, and where the innermost is. Its
  // functions and their lines are kept in Work's pools (two vectors per chain were most of the
  // allocations of naming a recording of a build: 74,000 for 37,000 chains).
  struct Chain {
    uint64_t start = 0, count = 0;  // in Work::chainFunctions and chainLines
    uint64_t file = 0, line = 0;    // name index, 0 if unknown
  };
  // What regrouping the inner source's layers works with.
  struct Work {
    Work(const FunctionLayer& i, FunctionLayer& o) : in(i), out(o) {}
    const FunctionLayer& in;
    FunctionLayer& out;
    bool stacks = false;
    uint32_t innerCaps = 0;
    StackLayer innerStacks;
    // (name, object, declaration) -> function; the views are of the symbol table's names and
    // the inner layer's rows, which outlive the work (no string made per lookup).
    std::unordered_map<FunctionKey, uint64_t, TupleHash> functionIndex;
    // In front of it, by numbers (a chain's frames are looked up per location; hashing their
    // names was a tenth of making the model of a g++ compile's recording): (the symbol
    // table's name index, or past the names a declared name's number in declaredIndex, the
    // object's number) -> function; per inner function, its object's number and the function
    // it stays where the table has no chain (-1: not yet).
    PairMap namedIndex, declaredIndex;  // declaredIndex: (name index, declaration) -> number
    std::unordered_map<std::string_view, uint64_t> objectIds;
    std::vector<int64_t> objectOf, unnamedOf;
    std::vector<int64_t> locationOf;  // per inner function: its first own location (-1: none)
    std::vector<Chain> chains;
    std::vector<uint64_t> chainFunctions, chainLines;  // per chain function: it, its line (or 0)
    std::span<const uint64_t> functions(const Chain& c) const {
      return {chainFunctions.data() + c.start, c.count};
    }
    std::span<const uint64_t> lines(const Chain& c) const {
      return {chainLines.data() + c.start, c.count};
    }
    std::vector<int64_t> memo[2];          // per inner function, not / as a return address
    std::vector<int64_t> chainOfLocation;  // per location: its chain (-1: none)
    std::vector<bool> framed;              // per location: a stack frame is at it
    CostByPair lineCost, functionLine;     // (file, line), (function, line) -> self cost
  };

  void renameIds(FunctionLayer& out);
  std::unique_ptr<ModelSource> releaseAfterStacks(std::unique_ptr<ModelSource> inner,
                                                  const FunctionLayer& in, FunctionLayer& out);
  uint64_t function(Work& w, const std::string& name, const std::string& file,
                    const std::string& object, bool unnamed = false, uint64_t declaration = 0);
  // `oldName`: where the table has no name at the address itself, take its name as a return
  // address (a caller's frame at its own address, in a table an earlier build wrote).
  int64_t chainAt(Work& w, uint64_t f, int64_t li, bool ret, bool oldName = false);
  const Chain& chainOf(Work& w, uint64_t f, bool ret);
  void nameLocations(Work& w);
  void nameLocation(Work& w, size_t i, std::map<std::pair<uint64_t, uint64_t>, size_t>& arcs);
  void keepLines(Work& w);
  void expandStacks(Work& w);
  void countFiles();

  // Per inner function, the chain its stack frames took (as the innermost frame, as a caller;
  // -1: none): what the timeline's spans of it become. The chains are Work's, kept where the
  // inner source has a timeline (a vector per function was 60,000 allocations on a g++ compile).
  std::vector<int64_t> spanChain_[2];
  std::vector<Chain> chains_;
  std::vector<uint64_t> chainFunctions_;

  std::unique_ptr<ModelSource> inner_;
  std::shared_ptr<const SymbolTable> tablePtr_;
  const SymbolTable& table_;
  size_t ne_ = 0;
  Summary summary_;
  uint64_t functionCount_ = 0, files_ = 0;
  bool renamed_ = false;
  LocationLayer locations_;
  StackLayer stacks_;
  std::unordered_map<std::string, std::vector<LineCost>> lines_;
  FunctionLineLayer functionLines_;
};

// Functions that are ids keep every figure of the source (call counts, times, arcs): each
// takes the name, file and line of its entry's outermost frame (the function itself). Per-line
// costs: each function's self cost on the line where it starts (an editor's gutter shows the
// function's time there).
void SymbolizedSource::renameIds(FunctionLayer& out) {
  inner_->functions(out);
  inner_->locations(locations_);
  summary_ = inner_->summary();
  std::vector<bool> file(table_.names.size(), false);
  CostByPair lineCost, functionLine;
  for (const Location& l : locations_.locations) {
    if (l.function < 0 || static_cast<size_t>(l.function) >= out.functions.size()) continue;
    const SymbolEntries::Span* it = table_.entries.find({l.mapping, l.address, false});
    if (!it) continue;
    const auto [first, count] = *it;
    const SymbolTable::Frame& fr = table_.frames[first + count - 1];
    FunctionRow& row = out.functions[static_cast<size_t>(l.function)];
    row.name = table_.names[fr.function];
    row.unnamed = false;
    row.file = table_.names[fr.file];
    row.line = fr.line;
    const size_t ne = out.events(), f = static_cast<size_t>(l.function);
    if (fr.line != 0 && fr.file != 0 && f * ne + ne <= out.self.size()) {
      std::vector<uint64_t> cost(out.self.begin() + f * ne, out.self.begin() + (f + 1) * ne);
      lineCost[{fr.file, fr.line}].resize(ne, 0);
      for (size_t e = 0; e < ne; ++e) lineCost[{fr.file, fr.line}][e] += cost[e];
      functionLine[{f, fr.line}] = std::move(cost);
    }
    if (fr.file != 0 && !file[fr.file]) {
      file[fr.file] = true;
      ++files_;
    }
  }
  for (auto& [key, cost] : lineCost)
    lines_[table_.names[key.first]].push_back({key.second, std::move(cost)});
  for (auto& [key, cost] : functionLine) {
    functionLines_.rows.push_back({key.first, key.second});
    functionLines_.self.insert(functionLines_.self.end(), cost.begin(), cost.end());
  }
  functionCount_ = out.functions.size();
  renamed_ = true;
}

// Builds every layer from the inner source's (which is done with afterwards).
std::unique_ptr<ModelSource> SymbolizedSource::releaseAfterStacks(
    std::unique_ptr<ModelSource> inner, const FunctionLayer& in, FunctionLayer& out) {
  Work w(in, out);
  w.innerCaps = inner->capabilities();
  w.stacks = (w.innerCaps & kCapStacks) != 0;
  if (w.stacks) inner->stacks(w.innerStacks);
  summary_ = inner->summary();
  const std::vector<Location>& locs = locations_.locations;
  w.locationOf.assign(in.functions.size(), -1);
  for (size_t i = 0; i < locs.size(); ++i)
    if (!locs[i].callSite && locs[i].function >= 0 &&
        static_cast<size_t>(locs[i].function) < in.functions.size() &&
        w.locationOf[static_cast<size_t>(locs[i].function)] < 0)
      w.locationOf[static_cast<size_t>(locs[i].function)] = static_cast<int64_t>(i);
  // About as many functions as the inner source's (fewer where names repeat, more where chains
  // add inlined ones): grown from empty, the index was rehashed and the rows moved a dozen times.
  w.functionIndex.reserve(in.functions.size());
  out.functions.reserve(in.functions.size());
  out.self.reserve(in.functions.size() * out.events());
  out.inclusive.reserve(in.functions.size() * out.events());
  w.memo[0].assign(in.functions.size(), -1);
  w.memo[1].assign(in.functions.size(), -1);
  w.objectOf.assign(in.functions.size(), -1);
  w.unnamedOf.assign(in.functions.size(), -1);
  nameLocations(w);
  keepLines(w);
  if (w.stacks) {
    expandStacks(w);
    addStackFigures(stacks_, out);
    if (w.innerCaps & kCapTimeline) {
      chains_ = std::move(w.chains);
      chainFunctions_ = std::move(w.chainFunctions);
    }
  }
  functionCount_ = out.functions.size();
  countFiles();
  return inner;
}

uint64_t SymbolizedSource::function(Work& w, const std::string& name, const std::string& file,
                                    const std::string& object, bool unnamed, uint64_t declaration) {
  auto [it, added] =
      w.functionIndex.try_emplace({name, object, declaration}, w.out.functions.size());
  if (added) w.out.addFunction({name, file, object, 0, unnamed});
  return it->second;
}

// The chain of inner function f at location li (-1: none) (its address; a caller's frame at
// address - 1, which a call-site location is at already).
int64_t SymbolizedSource::chainAt(Work& w, uint64_t f, int64_t li, bool ret, bool oldName) {
  Chain c;
  c.start = w.chainFunctions.size();
  const FunctionRow& row = w.in.functions[f];
  const SymbolEntries::Span* it = nullptr;
  if (li >= 0) {
    const Location& l = locations_.locations[static_cast<size_t>(li)];
    it = table_.entries.find({l.mapping, l.address + (l.callSite ? 1 : 0), ret});
    // A caller's frame at its own address (LocationLayer::framesPlaced) in a table an earlier
    // build wrote, which named it as a return address: its name from then.
    if (!it && oldName) it = table_.entries.find({l.mapping, l.address, true});
  }
  if (!it) {
    int64_t& same = w.unnamedOf[f];
    if (same < 0)
      same = static_cast<int64_t>(function(w, row.name, row.file, row.object, row.unnamed));
    w.chainFunctions.push_back(static_cast<uint64_t>(same));
    w.chainLines.push_back(0);
  } else {
    int64_t& object = w.objectOf[f];
    if (object < 0)
      object = static_cast<int64_t>(
          w.objectIds.try_emplace(row.object, w.objectIds.size()).first->second);
    const auto [first, count] = *it;
    for (uint64_t i = first + count; i-- > first;) {  // outermost first
      const SymbolTable::Frame& fr = table_.frames[i];
      bool added = false;
      uint64_t name = fr.function;
      if (fr.declaration != 0) {
        bool fresh = false;
        name = table_.names.size() + w.declaredIndex.findOrInsert(fr.function, fr.declaration,
                                                                  w.declaredIndex.size(), fresh);
      }
      uint64_t& fn = w.namedIndex.findOrInsert(name, static_cast<uint64_t>(object), 0, added);
      if (added)
        fn = function(w, table_.names[fr.function], table_.names[fr.file], row.object, false,
                      fr.declaration);
      w.chainFunctions.push_back(fn);
      w.chainLines.push_back(fr.line);
    }
    c.file = table_.frames[first].file;
    c.line = table_.frames[first].line;
  }
  c.count = w.chainFunctions.size() - c.start;
  w.chains.push_back(c);
  return static_cast<int64_t>(w.chains.size() - 1);
}

const SymbolizedSource::Chain& SymbolizedSource::chainOf(Work& w, uint64_t f, bool ret) {
  if (w.memo[ret][f] < 0) w.memo[ret][f] = chainAt(w, f, w.locationOf[f], ret);
  return w.chains[static_cast<size_t>(w.memo[ret][f])];
}

// Self cost, lines and locations: each location's own address. A call site no frame is at
// gets no chain (it would name its address as a function).
void SymbolizedSource::nameLocations(Work& w) {
  const size_t n = locations_.locations.size();
  w.chainOfLocation.assign(n, -1);
  std::vector<bool>& used = w.framed;
  used.assign(n, false);
  if (w.innerStacks.locations.size() == w.innerStacks.frames.size())
    for (uint64_t li : w.innerStacks.locations)
      if (li < used.size()) used[li] = true;
  locations_.inlined.clear();
  locations_.inlineStart.assign(1, 0);
  std::map<std::pair<uint64_t, uint64_t>, size_t> inlineArcs;  // (caller, callee) -> edge
  for (size_t i = 0; i < n; ++i) {
    Location& l = locations_.locations[i];
    if (l.function < 0 || static_cast<size_t>(l.function) >= w.in.functions.size() ||
        (l.callSite && !used[i])) {
      l.function = -1;
      locations_.inlined.push_back({-1, l.line});
      locations_.inlineStart.push_back(locations_.inlined.size());
      continue;
    }
    nameLocation(w, i, inlineArcs);
  }
}

void SymbolizedSource::nameLocation(Work& w, size_t i,
                                    std::map<std::pair<uint64_t, uint64_t>, size_t>& inlineArcs) {
  Location& l = locations_.locations[i];
  const uint64_t* self = locations_.self.data() + i * ne_;
  // An address only ever seen in callers' frames was looked up as a return address, unless
  // the source places its frames and a frame is at it (a caller's frame at a return address
  // then has a call site).
  const bool leaf = !w.stacks || anyCost(self, ne_) || (locations_.framesPlaced && w.framed[i]);
  const uint64_t inner = static_cast<uint64_t>(l.function);
  const bool ret = l.callSite || !leaf;
  w.chainOfLocation[i] =
      chainAt(w, inner, static_cast<int64_t>(i), ret, !ret && w.stacks && !anyCost(self, ne_));
  if (w.locationOf[inner] == static_cast<int64_t>(i) && w.memo[ret][inner] < 0)
    w.memo[ret][inner] = w.chainOfLocation[i];
  const Chain& c = w.chains[static_cast<size_t>(w.chainOfLocation[i])];
  const std::span<const uint64_t> functions = w.functions(c), lines = w.lines(c);
  l.function = static_cast<int64_t>(functions.back());
  l.line = c.line;
  for (size_t k = 0; k < functions.size(); ++k)
    locations_.inlined.push_back({static_cast<int64_t>(functions[k]), lines[k]});
  locations_.inlineStart.push_back(locations_.inlined.size());
  if (l.callSite) return;
  if (c.line != 0 && anyCost(self, ne_)) {
    auto& lc = w.lineCost[{c.file, c.line}];
    auto& fc = w.functionLine[{functions.back(), c.line}];
    lc.resize(ne_, 0);
    fc.resize(ne_, 0);
    for (size_t e = 0; e < ne_; ++e) {
      lc[e] += self[e];
      fc[e] += self[e];
    }
  }
  if (w.stacks) return;
  // No stacks: self on the innermost, inclusive on the whole chain, and an arc from each
  // function of the chain to the one inlined into it (what a caller's inclusive cost is made
  // of, for writers that add it up from arcs).
  FunctionLayer& out = w.out;
  for (size_t e = 0; e < ne_; ++e) out.self[functions.back() * ne_ + e] += self[e];
  std::vector<uint64_t> seen;
  for (size_t k = 0; k < functions.size(); ++k) {
    const uint64_t f = functions[k];
    if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
    seen.push_back(f);
    for (size_t e = 0; e < ne_; ++e) out.inclusive[f * ne_ + e] += self[e];
    if (k == 0) continue;
    auto [it, added] = inlineArcs.try_emplace({functions[k - 1], f}, out.edges.size());
    if (added) out.addEdge(functions[k - 1], f, 0);
    uint64_t* cost = out.edgeCost(it->second);
    for (size_t e = 0; e < ne_; ++e) cost[e] += self[e];
  }
}

void SymbolizedSource::keepLines(Work& w) {
  for (auto& [key, cost] : w.lineCost)
    lines_[table_.names[key.first]].push_back({key.second, std::move(cost)});
  for (auto& [key, cost] : w.functionLine) {
    functionLines_.rows.push_back({key.first, key.second});
    functionLines_.self.insert(functionLines_.self.end(), cost.begin(), cost.end());
  }
}

// Every stack with each frame expanded into its inline chain, each of the chain's frames at the
// frame's location where the inner source has them; stacks that become equal (functions and
// locations) are one.
void SymbolizedSource::expandStacks(Work& w) {
  const StackLayer& is = w.innerStacks;
  const std::vector<Location>& locs = locations_.locations;
  const bool frameLocations = is.locations.size() == is.frames.size();
  // The stacks made so far, by content (their frames and locations in stacks_): a stack is
  // appended to stacks_ first and dropped again where an equal one is there already. (A key
  // string per stack held a second copy of every stack, 110 of the 240 MB of naming a 50 MB
  // gperftools profile of 1.1 M chains.)
  auto span = [&](const std::vector<uint32_t>& v, uint64_t s) {
    return std::span<const uint32_t>(v.data() + stacks_.start[s], v.data() + stacks_.start[s + 1]);
  };
  auto hashOf = [&](uint64_t s) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (const auto* v : {&stacks_.frames, &stacks_.locations})
      if (!v->empty())
        for (uint64_t x : span(*v, s)) h = (h ^ x) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 32));
  };
  auto sameAs = [&](uint64_t a, uint64_t b) {
    const auto fa = span(stacks_.frames, a), fb = span(stacks_.frames, b);
    if (!std::equal(fa.begin(), fa.end(), fb.begin(), fb.end())) return false;
    if (stacks_.locations.empty()) return true;
    const auto la = span(stacks_.locations, a), lb = span(stacks_.locations, b);
    return std::equal(la.begin(), la.end(), lb.begin(), lb.end());
  };
  std::unordered_set<uint64_t, decltype(hashOf), decltype(sameAs)> stackIndex(16, hashOf, sameAs);
  // As many frames as the inner stacks have, at least (an inline chain adds): growing by
  // doubling would hold the old copy and the new at once.
  stacks_.frames.reserve(is.frames.size());
  if (frameLocations) stacks_.locations.reserve(is.frames.size());
  stacks_.start.reserve(is.stacks() + 1);
  stacks_.values.reserve(is.stacks() * ne_);
  std::vector<uint64_t> frames, at;
  const bool timeline = (w.innerCaps & kCapTimeline) != 0;
  for (auto& c : spanChain_) c.assign(timeline ? w.in.functions.size() : 0, -1);
  std::vector<uint64_t> outOf(is.stacks());  // per inner stack: the stack it became
  for (size_t s = 0; s < is.stacks(); ++s) {
    frames.clear();
    at.clear();
    const uint64_t b = is.start[s], e = is.start[s + 1];
    for (uint64_t k = b; k < e; ++k) {
      const uint64_t f = is.frames[k];
      if (f >= w.in.functions.size())
        throw Error(Status::internal, kFmt, "a stack names a function beyond the model");
      const uint64_t li = frameLocations ? is.locations[k] : locs.size();
      const Chain& c = li < locs.size() && w.chainOfLocation[li] >= 0
                           ? w.chains[static_cast<size_t>(w.chainOfLocation[li])]
                           : chainOf(w, f, k + 1 < e);
      const std::span<const uint64_t> chain = w.functions(c);
      frames.insert(frames.end(), chain.begin(), chain.end());
      if (timeline && spanChain_[k + 1 < e][f] < 0) spanChain_[k + 1 < e][f] = &c - w.chains.data();
      if (frameLocations) at.insert(at.end(), chain.size(), li);
    }
    const uint64_t made = stacks_.stacks();
    stacks_.frames.insert(stacks_.frames.end(), frames.begin(), frames.end());
    stacks_.locations.insert(stacks_.locations.end(), at.begin(), at.end());
    stacks_.start.push_back(stacks_.frames.size());
    auto [it, added] = stackIndex.insert(made);
    if (added) {
      stacks_.values.resize(stacks_.values.size() + ne_, 0);
    } else {  // a stack made before: this copy goes
      stacks_.start.pop_back();
      stacks_.frames.resize(stacks_.start.back());
      stacks_.locations.resize(frameLocations ? stacks_.start.back() : 0);
    }
    for (size_t ev = 0; ev < ne_; ++ev) stacks_.values[*it * ne_ + ev] += is.values[s * ne_ + ev];
    outOf[s] = *it;
  }
  // The rows per thread follow their stacks (two may now be one: two rows of it).
  stacks_.threadValues = is.threadValues;
  for (size_t r = 0; r + 1 < stacks_.threadValues.size(); r += 2 + ne_)
    stacks_.threadValues[r] = stacks_.threadValues[r] < outOf.size()
                                  ? outOf[stacks_.threadValues[r]]
                                  : ~uint64_t{0};  // out of range: Model::stacks drops them all
}

// The inner timeline with each span expanded into its function's inline chain: a thread's spans
// are taken a tree at a time (up to a span at depth 0, callees first), each span's depth moved
// by the chains of its callers (the last span seen one depth lower, walking the tree backwards).
void SymbolizedSource::spans(SpanSink& sink) {
  if (renamed_) {
    inner_->spans(sink);
    return;
  }
  struct Expand : SpanSink {
    SymbolizedSource& s;
    SpanSink& out;
    std::unordered_map<uint32_t, std::vector<Span>> open;  // per thread, a tree's spans so far
    std::vector<uint64_t> base, length;                    // per depth
    std::vector<std::span<const uint64_t>> chain;          // per span of the tree
    Expand(SymbolizedSource& o, SpanSink& sink) : s(o), out(sink) {}
    std::span<const uint64_t> chainOf(uint64_t f, bool caller) const {  // empty: none
      for (bool ret : {caller, !caller})
        if (f < s.spanChain_[ret].size() && s.spanChain_[ret][f] >= 0) {
          const Chain& c = s.chains_[static_cast<size_t>(s.spanChain_[ret][f])];
          return {s.chainFunctions_.data() + c.start, c.count};
        }
      return {};
    }
    void span(const Span& sp) override {
      std::vector<Span>& tree = open[sp.thread];
      tree.push_back(sp);
      if (sp.depth == 0) flush(tree);
    }
    void flush(std::vector<Span>& tree) {
      chain.assign(tree.size(), {});
      for (size_t i = 0; i < tree.size(); ++i)  // a span without callees: its own address
        chain[i] = chainOf(tree[i].function, i > 0 && tree[i - 1].depth > tree[i].depth);
      std::vector<uint64_t> depth(tree.size());
      for (size_t i = tree.size(); i-- > 0;) {
        const uint32_t d = tree[i].depth;
        if (base.size() <= d) base.resize(d + 1), length.resize(d + 1);
        base[d] = d == 0 ? 0 : base[d - 1] + length[d - 1];
        length[d] = chain[i].empty() ? 1 : chain[i].size();
        depth[i] = base[d];
      }
      for (size_t i = 0; i < tree.size(); ++i) {
        Span sp = tree[i];
        if (chain[i].empty()) {
          throw Error(Status::internal, kFmt, "a span of a function no stack holds");
        }
        const std::span<const uint64_t> c = chain[i];
        for (size_t k = c.size(); k-- > 0;) {
          sp.function = c[k];
          sp.depth = static_cast<uint32_t>(depth[i] + k);
          out.span(sp);
        }
      }
      tree.clear();
    }
  };
  Expand expand(*this, sink);
  inner_->spans(expand);
  for (auto& [thread, tree] : expand.open)
    if (!tree.empty()) expand.flush(tree);
}

void SymbolizedSource::countFiles() {
  files_ = 0;
  std::vector<bool> file(table_.names.size(), false);
  for (const SymbolTable::Frame& f : table_.frames)
    if (f.file != 0 && !file[f.file]) {
      file[f.file] = true;
      ++files_;
    }
}

}  // namespace

namespace {

// A symbol section names what symbolize looks up: function ids, and the addresses of formats
// without names (in any other profile, such as a crafted .ppk, it is ignored).
bool named(const ModelSource& inner, const Profile& profile) {
  const uint32_t caps = inner.capabilities();
  return profile.hasSymbols() &&
         ((caps & kCapFunctionIds) || ((caps & kCapAddresses) && !(caps & kCapNames)));
}

}  // namespace

std::unique_ptr<ModelSource> symbolizedSource(std::unique_ptr<ModelSource> inner,
                                              const Profile& profile, ModelCache* cache) {
  if (!named(*inner, profile)) return inner;
  auto decode = [&] { return SymbolTable(profile.root().getSymbols()); };
  std::shared_ptr<const SymbolTable> table = cache
                                                 ? cache->get<SymbolTable>("symbol section", decode)
                                                 : std::make_shared<const SymbolTable>(decode());
  return std::make_unique<SymbolizedSource>(std::move(inner), std::move(table));
}

void nameBySymbolSection(Profile& profile) {
  if (!profile.hasSymbols() || profile.sourceWrap()) return;  // named already (nameByTable)
  profile.setSourceWrap([](std::unique_ptr<ModelSource> inner, const Profile& p, ModelCache* c) {
    return symbolizedSource(std::move(inner), p, c);
  });
}

void nameByTable(Profile& profile, std::shared_ptr<const SymbolTable> table) {
  profile.setSourceWrap([table = std::move(table)](std::unique_ptr<ModelSource> inner,
                                                   const Profile& p,
                                                   ModelCache*) -> std::unique_ptr<ModelSource> {
    if (!named(*inner, p)) return inner;
    return std::make_unique<SymbolizedSource>(std::move(inner), table);
  });
}

}  // namespace profpack
