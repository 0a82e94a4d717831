// The model of a Callgrind-family profile (Callgrind, Cachegrind): functions are (object,
// file, name), where file is the file the cost lines are in (the fi=/fe= file where one is in
// effect, as callgrind_annotate attributes them); events are the file's events; threads are the
// parts' `thread:` values; lines and instruction addresses come from the positions.

#include "formats/callgrind/model.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>
#include <unordered_set>

#include "error.h"
#include "formats/callgrind/costs.h"
#include "util/pairmap.h"

namespace profpack {

namespace {

constexpr uint64_t kNone = ~uint64_t{0};

// A part's `name:` header value as a number (0 if absent or not a number; -1, an id the
// profile it was written from did not know, kUnknownId).
uint64_t headerNumber(ir::Part::Reader part, std::string_view name) {
  for (auto h : part.getHeaderLines()) {
    if (std::string_view(h.getKey().cStr()) != name) continue;
    std::string_view text = h.getValue().cStr();
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    if (text == "-1") return kUnknownId;
    uint64_t v = 0;
    for (char c : text) {
      if (c == ' ' || c == '\t') continue;
      if (c < '0' || c > '9' || v > (~uint64_t{0} - 9) / 10) return 0;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return v;
  }
  return 0;
}

bool hasHeader(ir::Part::Reader part, std::string_view name) {
  for (auto h : part.getHeaderLines())
    if (std::string_view(h.getKey().cStr()) == name) return true;
  return false;
}

class CostTableSource : public ModelSource {
 public:
  CostTableSource(const Profile& profile, const ModelOptions& options)
      : profile_(profile),
        root_(profile.root()),
        contexts_(root_.getContexts(), profile.strings().size()),
        npos_(root_.getPositionKinds().size()),
        ne_(root_.getEvents().size()) {
    // Threads: the parts' (pid, thread) pairs, where the parts name them.
    std::map<std::pair<uint64_t, uint64_t>, size_t> threads;
    bool named = false;
    for (auto part : root_.getParts()) {
      named |= hasHeader(part, "thread");
      partThread_.push_back({headerNumber(part, "pid"), headerNumber(part, "thread")});
      threads.emplace(partThread_.back(), 0);
    }
    if (named) {
      for (auto& [key, index] : threads) {
        index = threads_.size();
        threads_.push_back(
            {static_cast<uint32_t>(key.first), static_cast<uint32_t>(key.second), {}, {}});
      }
      for (auto& t : partThread_) partIndex_.push_back(threads.at(t));
    }
    if (options.thread >= 0 && static_cast<size_t>(options.thread) >= threads_.size())
      throw Error(Status::invalidArgument, "",
                  "thread index " + std::to_string(options.thread) +
                      " out of range: the profile has " + std::to_string(threads_.size()) +
                      " threads");
    thread_ = options.thread;
    auto kinds = root_.getPositionKinds();
    for (unsigned i = 0; i < npos_; ++i) {
      if (kinds[i] == ir::PositionKind::LINE) linePos_ = i;
      if (kinds[i] == ir::PositionKind::INSTR) instrPos_ = i;
    }
  }

  uint32_t capabilities() const override {
    // Cachegrind files record no calls; Callgrind files do.
    uint32_t c = kCapNames;
    if (root_.getFormat() != ir::Format::CACHEGRIND) c |= kCapCallArcs | kCapCallCounts;
    if (root_.getSignedCosts()) c |= kCapSigned;
    if (linePos_ >= 0) c |= kCapLines;
    if (instrPos_ >= 0) c |= kCapAddresses;
    if (!threads_.empty()) c |= kCapThreads;
    return c;
  }

  void functions(FunctionLayer& out) override;
  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override;
  void functionLines(FunctionLineLayer& out) override;
  void locations(LocationLayer& out) override;
  Summary summary() override;

 private:
  bool selected(size_t part) const {
    return thread_ < 0 || partIndex_[part] == static_cast<size_t>(thread_);
  }
  // Calls f(batch, row, costs, count) for every self-cost row of the selected parts, with the
  // rows' positions decoded.
  template <class F>
  void forEachCostRow(F&& f) {
    size_t partNo = 0;
    for (auto part : root_.getParts()) {
      if (!selected(partNo++)) continue;
      CostTableBatches t(part.getCosts(), npos_, ne_, contexts_.size(), /*withPositions=*/true);
      while (t.next()) {
        size_t ci = 0;
        for (size_t r = 0; r < t.rows; ++r) {
          const size_t n = t.costCount[r];
          const uint64_t* c = t.costs.data() + ci;
          ci += n;
          if (t.kind[r] == static_cast<uint64_t>(ir::RecordKind::COST)) f(t, r, c, n);
        }
      }
    }
  }

  const Profile& profile_;
  ir::Profile::Reader root_;
  DecodedContexts contexts_;
  size_t npos_, ne_;
  long linePos_ = -1, instrPos_ = -1;
  long thread_ = -1;
  std::vector<std::pair<uint64_t, uint64_t>> partThread_;
  std::vector<size_t> partIndex_;  // part -> index into threads_ (where parts name threads)
  std::vector<ThreadRow> threads_;
  // functions()'s steps. Rows find their function through a per-context cache (ctxFn_); the
  // (object, file, name) map is consulted only the first time a context (or a context with an
  // inlined file) is seen.
  uint64_t functionOf(FunctionLayer& out, uint64_t object, uint64_t file, uint64_t name);
  uint64_t functionOfContext(FunctionLayer& out, uint64_t ctx);
  void layerFromSums(FunctionLayer& out, const RowSums& sums, PairMap& edgeIndex);
  void passOverRows(FunctionLayer& out, PairMap& edgeIndex);  // of the selected parts
  void finishLayer(FunctionLayer& out);  // calls and inclusive costs, from self and the edges
  // Where the profile was just read, its reader's sums of every row (RowSums, in the order a
  // pass over the rows meets them), passed to `use` and given back after for the next model of
  // the profile; false where there are none (a profile read from .ppk) or they are not usable.
  template <class F>
  bool withReadSums(F&& use);

  // Function of each (object, file, name), shared by the layers.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> functionIds_;
  std::vector<uint64_t> ctxFn_;  // context -> its function (kNone: not yet seen)
};

template <class F>
bool CostTableSource::withReadSums(F&& use) {
  std::unique_ptr<Profile::Decoded> taken = profile_.takeDecoded();
  const auto* read = dynamic_cast<const DecodedRowSums*>(taken.get());
  const bool usable = read && read->sums.usable && read->sums.events == ne_;
  if (usable) use(read->sums);
  if (taken) profile_.returnDecoded(std::move(taken));
  return usable;
}

uint64_t CostTableSource::functionOf(FunctionLayer& out, uint64_t object, uint64_t file,
                                     uint64_t name) {
  auto [it, inserted] = functionIds_.try_emplace({object, file, name}, out.functions.size());
  if (inserted) {
    const StringTableReader& strings = profile_.strings();
    out.addFunction({std::string(strings.get(name)), std::string(strings.get(file)),
                     std::string(strings.get(object))});
  }
  return it->second;
}

uint64_t CostTableSource::functionOfContext(FunctionLayer& out, uint64_t ctx) {
  if (ctxFn_[ctx] == kNone)
    ctxFn_[ctx] =
        functionOf(out, contexts_.object[ctx], contexts_.file[ctx], contexts_.function[ctx]);
  return ctxFn_[ctx];
}

void CostTableSource::functions(FunctionLayer& out) {
  for (auto e : root_.getEvents()) {
    out.eventNames.emplace_back(e.getName().cStr());
    out.eventLongNames.emplace_back(e.getLongName().cStr());
  }
  out.threads = threads_;
  if (root_.getParts().size() > 0)
    for (auto h : root_.getParts()[0].getHeaderLines()) {
      std::string_view key = h.getKey().cStr();
      if (key == "desc" && parseBaseTotalsDesc(h.getValue().cStr(), out.eventNames, out.baseTotals))
        continue;
      if (key == "desc" || key == "cmd") out.description.emplace_back(key, h.getValue().cStr());
    }
  ctxFn_.assign(contexts_.size(), kNone);
  PairMap edgeIndex;  // (caller, callee) -> edge
  // A model of one thread passes over its parts' rows; the sums are the whole profile's.
  if (thread_ >= 0 ||
      !withReadSums([&](const RowSums& sums) { layerFromSums(out, sums, edgeIndex); }))
    passOverRows(out, edgeIndex);
  finishLayer(out);
}

void CostTableSource::layerFromSums(FunctionLayer& out, const RowSums& sums, PairMap& edgeIndex) {
  const size_t ne = ne_;
  std::vector<uint64_t> fnOfKey(sums.keys.size());
  for (size_t k = 0; k < sums.keys.size(); ++k) {
    const auto [ctx, file] = sums.keys[k];
    if (ctx >= contexts_.size())
      throw Error(Status::internal, "", "read sums name context " + std::to_string(ctx));
    fnOfKey[k] = file == 0 ? functionOfContext(out, ctx)
                           : functionOf(out, contexts_.object[ctx], file, contexts_.function[ctx]);
  }
  for (size_t k = 0; k < sums.keys.size(); ++k)
    for (size_t i = 0; i < ne; ++i) out.self[fnOfKey[k] * ne + i] += sums.self[k * ne + i];
  for (size_t e = 0; e < sums.edgeCalls.size(); ++e) {
    const uint64_t caller = fnOfKey[sums.edgeCaller[e]], callee = fnOfKey[sums.edgeCallee[e]];
    bool inserted;
    const uint64_t edge = edgeIndex.findOrInsert(caller, callee, out.edges.size(), inserted);
    if (inserted) out.addEdge(caller, callee, 0);
    out.edges[edge].calls += sums.edgeCalls[e];
    uint64_t* inclusive = out.edgeCost(edge);
    for (size_t i = 0; i < ne; ++i) inclusive[i] += sums.edgeCosts[e * ne + i];
  }
}

void CostTableSource::passOverRows(FunctionLayer& out, PairMap& edgeIndex) {
  const size_t ne = ne_;
  const DecodedContexts& contexts = contexts_;
  const uint64_t* ctxFn = ctxFn_.data();  // (sized once by functions(): the pointer stays)
  PairMap inlinedFn;  // (ctx, file) -> function
  uint64_t lastCtx = kNone, lastFile = 0, lastFn = 0;

  size_t partNo = 0;
  for (auto part : root_.getParts()) {
    if (!selected(partNo++)) continue;
    CostTableBatches t(part.getCosts(), npos_, ne, contexts.size());
    while (t.next()) {
      size_t ci = 0, ai = 0;
      // Locals: the loop stores through uint64_t pointers, which could alias the vectors.
      const uint64_t *kind = t.kind.data(), *context = t.context.data();
      const uint64_t *sourceFile = t.sourceFile.data(), *costCount = t.costCount.data();
      const uint64_t* costs = t.costs.data();
      uint64_t* selfCosts = out.self.data();
      for (size_t r = 0; r < t.rows; ++r) {
        const size_t n = costCount[r];
        const uint64_t* c = costs + ci;
        ci += n;
        const uint64_t ctx = context[r];
        uint64_t fn;
        if (sourceFile[r] == 0) {
          fn = ctxFn[ctx];
          if (fn == kNone) [[unlikely]] {
            fn = functionOfContext(out, ctx);
            selfCosts = out.self.data();  // a new function grows self
          }
        } else if (ctx == lastCtx && sourceFile[r] == lastFile) {  // runs of inlined rows
          fn = lastFn;
        } else {
          bool inserted;
          uint64_t& f = inlinedFn.findOrInsert(ctx, sourceFile[r], 0, inserted);
          if (inserted)
            f = functionOf(out, contexts.object[ctx], sourceFile[r], contexts.function[ctx]);
          fn = lastFn = f;
          lastCtx = ctx;
          lastFile = sourceFile[r];
          selfCosts = out.self.data();
        }
        if (kind[r] == static_cast<uint64_t>(ir::RecordKind::COST)) {
          uint64_t* self = selfCosts + fn * ne;
          if (n == 1)
            self[0] += c[0];
          else
            for (size_t i = 0; i < n; ++i) self[i] += c[i];
          continue;
        }
        const size_t a = ai++;
        if (kind[r] != static_cast<uint64_t>(ir::RecordKind::CALL)) continue;  // jumps
        const uint64_t callee = functionOfContext(out, t.target[a]);
        selfCosts = out.self.data();
        bool inserted;
        const uint64_t e = edgeIndex.findOrInsert(fn, callee, out.edges.size(), inserted);
        if (inserted) out.addEdge(fn, callee, 0);
        out.edges[e].calls += t.count[a];
        uint64_t* inclusive = out.edgeCost(e);
        for (size_t i = 0; i < n; ++i) inclusive[i] += c[i];
      }
    }
  }
}

namespace {

// Per function: the cycle of calls through at least one other function it is in (a strongly
// connected component of the call graph, self-calls left out, with more than one function),
// numbered from 0; kNoCycle where it is in none. Tarjan's algorithm with its own stack:
// linear, and no recursion as deep as the call graph is long.
constexpr uint64_t kNoCycle = ~uint64_t{0};
std::vector<uint64_t> callCycles(size_t nf, const std::vector<CallEdge>& edges, size_t& count) {
  std::vector<uint64_t> start(nf + 1, 0), to;
  for (const CallEdge& e : edges)
    if (e.caller != e.callee) ++start[e.caller + 1];
  for (size_t f = 0; f < nf; ++f) start[f + 1] += start[f];
  to.resize(start[nf]);
  std::vector<uint64_t> fill(start.begin(), start.end() - 1);
  for (const CallEdge& e : edges)
    if (e.caller != e.callee) to[fill[e.caller]++] = e.callee;
  constexpr uint64_t kUnseen = ~uint64_t{0};
  std::vector<uint64_t> index(nf, kUnseen), low(nf, 0), next(nf, 0), members;
  std::vector<bool> onStack(nf, false);
  std::vector<uint64_t> cycleOf(nf, kNoCycle);
  count = 0;
  std::vector<uint64_t> path;
  uint64_t counter = 0;
  for (size_t root = 0; root < nf; ++root) {
    if (index[root] != kUnseen) continue;
    path.push_back(root);
    while (!path.empty()) {
      const uint64_t f = path.back();
      if (index[f] == kUnseen) {
        index[f] = low[f] = counter++;
        next[f] = start[f];
        members.push_back(f);
        onStack[f] = true;
      }
      if (next[f] < start[f + 1]) {
        const uint64_t g = to[next[f]++];
        if (index[g] == kUnseen) {
          path.push_back(g);
        } else if (onStack[g]) {
          low[f] = std::min(low[f], index[g]);
        }
        continue;
      }
      path.pop_back();
      if (!path.empty()) low[path.back()] = std::min(low[path.back()], low[f]);
      if (low[f] != index[f]) continue;
      const bool cycle = members.back() != f;
      for (;;) {
        const uint64_t m = members.back();
        members.pop_back();
        onStack[m] = false;
        if (cycle) cycleOf[m] = count;
        if (m == f) break;
      }
      if (cycle) ++count;
    }
  }
  return cycleOf;
}

}  // namespace

void CostTableSource::finishLayer(FunctionLayer& out) {
  const size_t ne = ne_;
  out.calls.assign(out.functions.size(), 0);
  for (const CallEdge& e : out.edges) out.calls[e.callee] += e.calls;

  // Inclusive: a function with callers other than itself costs what those calls cost, as
  // callgrind_annotate reports it; any other function costs its self cost plus its calls to
  // others (recursive calls counted once). A function in no cycle of calls through other
  // functions costs at least its self cost plus its calls to others: more than its callers'
  // calls where it is also entered without a call (a thread's first function, in a profile
  // of several threads merged: callgrind_annotate's rule gave clone less than its self cost
  // there). In a cycle (f calls g calls f) that sum would count the inner calls again, and
  // the calls to it count them too: there it costs at most what the whole cycle costs.
  const size_t nf = out.functions.size();
  std::vector<bool> called(nf, false);
  for (size_t k = 0; k < out.edges.size(); ++k) {
    const CallEdge& e = out.edges[k];
    if (e.caller == e.callee) continue;
    called[e.callee] = true;
    for (size_t i = 0; i < ne; ++i) out.inclusive[e.callee * ne + i] += out.edgeCost(k)[i];
  }
  std::vector<uint64_t> own(out.self);  // self cost plus calls to others
  for (size_t k = 0; k < out.edges.size(); ++k) {
    const CallEdge& e = out.edges[k];
    if (e.caller == e.callee) continue;
    for (size_t i = 0; i < ne; ++i) own[e.caller * ne + i] += out.edgeCost(k)[i];
  }
  // A difference (signed costs) keeps the calls to a called function: a maximum of two
  // differences is no difference of the two inputs' figures (and the unsigned comparison
  // took every negative figure for the larger), nor is a minimum.
  const bool difference = root_.getSignedCosts();
  size_t cycles = 0;
  const std::vector<uint64_t> cycleOf =
      difference ? std::vector<uint64_t>(nf, kNoCycle) : callCycles(nf, out.edges, cycles);
  // A cycle's own cost: its functions' self costs and their calls out of it, everything spent
  // while one of them runs (a function outside cannot call back in). Inside a cycle the calls
  // to a function count the inner calls again (is_even'2 and is_odd'2 calling each other:
  // 16 times the program), so a function of a cycle costs at most its cycle's own cost.
  std::vector<uint64_t> cycleCost(cycles * ne, 0);
  for (size_t f = 0; f < nf; ++f)
    if (cycleOf[f] != kNoCycle)
      for (size_t i = 0; i < ne; ++i) cycleCost[cycleOf[f] * ne + i] += out.self[f * ne + i];
  for (size_t k = 0; k < out.edges.size(); ++k) {
    const CallEdge& e = out.edges[k];
    const uint64_t c = cycleOf[e.caller];
    if (c == kNoCycle || cycleOf[e.callee] == c) continue;
    for (size_t i = 0; i < ne; ++i) cycleCost[c * ne + i] += out.edgeCost(k)[i];
  }
  for (size_t f = 0; f < nf; ++f) {
    uint64_t* inclusive = &out.inclusive[f * ne];
    if (!called[f]) {  // its own cost, in a difference too
      std::copy_n(own.begin() + static_cast<std::ptrdiff_t>(f * ne), ne, inclusive);
    } else if (cycleOf[f] != kNoCycle) {
      for (size_t i = 0; i < ne; ++i)
        inclusive[i] = std::min(inclusive[i], cycleCost[cycleOf[f] * ne + i]);
    } else if (!difference) {
      for (size_t i = 0; i < ne; ++i) inclusive[i] = std::max(inclusive[i], own[f * ne + i]);
    }
  }
}

void CostTableSource::lines(std::unordered_map<std::string, std::vector<LineCost>>& out) {
  if (linePos_ < 0) return;
  const StringTableReader& strings = profile_.strings();
  std::unordered_map<uint64_t, std::map<uint64_t, std::vector<uint64_t>>> fileLines;
  forEachCostRow([&](const CostTableBatches& t, size_t r, const uint64_t* c, size_t n) {
    const uint64_t file = t.sourceFile[r] ? t.sourceFile[r] : contexts_.file[t.context[r]];
    auto& lc = fileLines[file][t.positions[static_cast<size_t>(linePos_)][r]];
    lc.resize(ne_, 0);
    for (size_t i = 0; i < n; ++i) lc[i] += c[i];
  });
  for (auto& [file, byLine] : fileLines) {
    auto& lines = out[std::string(strings.get(file))];
    for (auto& [line, cost] : byLine) lines.push_back({line, std::move(cost)});
  }
}

void CostTableSource::functionLines(FunctionLineLayer& out) {
  if (linePos_ < 0) return;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> byLine;
  forEachCostRow([&](const CostTableBatches& t, size_t r, const uint64_t* c, size_t n) {
    const uint64_t ctx = t.context[r];
    const uint64_t file = t.sourceFile[r] ? t.sourceFile[r] : contexts_.file[ctx];
    auto it = functionIds_.find({contexts_.object[ctx], file, contexts_.function[ctx]});
    if (it == functionIds_.end()) return;  // every cost row's function is in the layer
    std::vector<uint64_t>& cost =
        byLine[{it->second, t.positions[static_cast<size_t>(linePos_)][r]}];
    cost.resize(ne_, 0);
    for (size_t i = 0; i < n; ++i) cost[i] += c[i];
  });
  out.rows.reserve(byLine.size());
  out.self.reserve(byLine.size() * ne_);
  for (auto& [key, cost] : byLine) {
    out.rows.push_back({key.first, key.second});
    out.self.insert(out.self.end(), cost.begin(), cost.end());
  }
}

void CostTableSource::locations(LocationLayer& out) {
  if (instrPos_ < 0) return;
  const StringTableReader& strings = profile_.strings();
  // Mappings: the contexts' objects, by name; every cost row's address is one location per
  // (object, address, function, line), its self cost the sum of the rows' costs. Functions
  // share addresses (recursion contexts f'2, aliases): one location per address would hand
  // one function's cost to another.
  std::map<std::string_view, int64_t> objects;
  for (uint64_t o : contexts_.object) objects.emplace(strings.get(o), 0);
  for (auto& [name, index] : objects) {
    index = static_cast<int64_t>(out.mappings.size());
    out.mappings.push_back({0, 0, 0, std::string(name)});
  }
  std::vector<int64_t> mappingOf(contexts_.size());
  for (size_t c = 0; c < contexts_.size(); ++c)
    mappingOf[c] = objects.at(strings.get(contexts_.object[c]));
  // (mapping, address, function, line) -> self cost per event.
  std::map<std::tuple<int64_t, uint64_t, int64_t, uint64_t>, std::vector<uint64_t>> byAddress;
  forEachCostRow([&](const CostTableBatches& t, size_t r, const uint64_t* c, size_t n) {
    const uint64_t ctx = t.context[r];
    const uint64_t file = t.sourceFile[r] ? t.sourceFile[r] : contexts_.file[ctx];
    auto it = functionIds_.find({contexts_.object[ctx], file, contexts_.function[ctx]});
    const int64_t function = it != functionIds_.end() ? static_cast<int64_t>(it->second) : -1;
    const uint64_t line = linePos_ >= 0 ? t.positions[static_cast<size_t>(linePos_)][r] : 0;
    std::vector<uint64_t>& cost =
        byAddress[{mappingOf[ctx], t.positions[static_cast<size_t>(instrPos_)][r], function, line}];
    if (cost.empty()) cost.assign(ne_, 0);
    for (size_t i = 0; i < n; ++i) cost[i] += c[i];
  });
  out.locations.reserve(byAddress.size());
  out.self.reserve(byAddress.size() * ne_);
  for (auto& [key, cost] : byAddress) {
    const auto& [mapping, address, function, line] = key;
    out.locations.push_back({address, mapping, function, line});
    out.self.insert(out.self.end(), cost.begin(), cost.end());
  }
}

Summary CostTableSource::summary() {
  Summary s;
  s.formatVersion = root_.getFormatVersion().cStr();
  s.parts = root_.getParts().size();
  const size_t strings = profile_.strings().size();
  s.strings = strings > 0 ? strings - 1 : 0;
  std::unordered_set<uint64_t> fns, files, objects;
  for (size_t i = 0; i < contexts_.size(); ++i) {
    if (contexts_.function[i]) fns.insert(contexts_.function[i]);
    if (contexts_.file[i]) files.insert(contexts_.file[i]);
    if (contexts_.object[i]) objects.insert(contexts_.object[i]);
  }
  // A profile just read: the rows' source files are in its reader's sums (every row's key).
  const bool fromSums = withReadSums([&](const RowSums& sums) {
    for (const auto& key : sums.keys)
      if (key.second) files.insert(key.second);
    for (auto part : root_.getParts()) s.records += part.getCosts().getRows();
  });
  if (!fromSums)
    for (auto part : root_.getParts()) {
      CostTableBatches t(part.getCosts(), npos_, ne_, contexts_.size());
      while (t.next()) {
        s.records += t.rows;
        for (size_t r = 0; r < t.rows; ++r)
          if (t.sourceFile[r]) files.insert(t.sourceFile[r]);
      }
    }
  s.functions = fns.size();
  s.files = files.size();
  s.objects = objects.size();
  return s;
}

}  // namespace

std::unique_ptr<ModelSource> costTableModel(const Profile& profile, const ModelOptions& options) {
  return std::make_unique<CostTableSource>(profile, options);
}

constexpr std::string_view kBaseTotals = "Base totals:";

std::string baseTotalsDesc(const Model& m) {
  std::string out;
  for (size_t e = 0; e < m.events(); ++e)
    if (m.baseTotal(e) > 0) out += ' ' + m.eventNames()[e] + '=' + std::to_string(m.baseTotal(e));
  return out.empty() ? out : std::string(kBaseTotals) + out;
}

bool parseBaseTotalsDesc(std::string_view value, const std::vector<std::string>& events,
                         std::vector<uint64_t>& totals) {
  if (!value.starts_with(kBaseTotals)) return false;
  std::vector<uint64_t> parsed(events.size(), 0);
  value.remove_prefix(kBaseTotals.size());
  while (!value.empty()) {
    const size_t space = value.find(' ');
    const std::string_view item = value.substr(0, space);
    value = space == std::string_view::npos ? std::string_view() : value.substr(space + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return false;  // not ours: kept as a description
    uint64_t n = 0;
    const std::string_view digits = item.substr(eq + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) return false;
    auto it = std::find(events.begin(), events.end(), item.substr(0, eq));
    if (it != events.end()) parsed[static_cast<size_t>(it - events.begin())] = n;
  }
  totals = std::move(parsed);
  return true;
}

}  // namespace profpack
