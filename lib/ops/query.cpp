#include "ops/query.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "formats/dcpi/dcpi.h"
#include "error.h"
#include "formats/callgrind/costs.h"
#include "util/pairmap.h"
#include "formats/xray/account.h"
#include "formats/gperftools/stacks.h"

namespace profpack {

CallGraph::CallGraph(const Profile& profile, const std::vector<std::string>* names, long thread) {
  auto root = profile.root();
  switch (root.getFormat()) {
    case ir::Format::XRAY: fromXray(profile, names, thread); break;
    case ir::Format::DCPI: fromDcpi(profile); break;
    case ir::Format::GPERFTOOLS: fromStacks(profile); break;
    default:
      for (auto e : root.getEvents()) {
        eventNames_.emplace_back(e.getName().cStr());
        eventLongNames_.emplace_back(e.getLongName().cStr());
      }
      fromCostTables(profile);
  }
  eventLongNames_.resize(eventNames_.size());
  for (size_t e = 0; e < edges_.size(); ++e) edges_[e].inclusive = edgeCost(e);
  totals_.assign(events(), 0);
  for (size_t f = 0; f < functions(); ++f)
    for (size_t e = 0; e < events(); ++e) totals_[e] += self(f, e);
}

size_t CallGraph::addEdge(uint64_t caller, uint64_t callee, uint64_t calls) {
  edges_.push_back({caller, callee, calls, nullptr});
  edgeCosts_.resize(edgeCosts_.size() + events(), 0);
  return edges_.size() - 1;
}

void CallGraph::fromCostTables(const Profile& profile) {
  auto root = profile.root();
  const StringTableReader& strings = profile.strings();
  DecodedContexts contexts(root.getContexts(), strings.size());
  const size_t ne = events();
  const size_t npos = root.getPositionKinds().size();

  // A function is (object, file, name) where file is the file the cost lines are in: the
  // fi=/fe= file where one is in effect, as callgrind_annotate attributes them. Rows find their
  // function through a per-context cache; the (object, file, name) map is consulted only the
  // first time a context (or a context with an inlined file) is seen.
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> ids;
  auto fnOf = [&](uint64_t object, uint64_t file, uint64_t name) {
    auto [it, inserted] = ids.try_emplace({object, file, name}, functions_.size());
    if (inserted) {
      functions_.push_back({std::string(strings.get(name)), std::string(strings.get(file)),
                            std::string(strings.get(object))});
      self_.resize(self_.size() + ne, 0);
    }
    return it->second;
  };
  constexpr uint64_t kNone = ~uint64_t{0};
  std::vector<uint64_t> ctxFn(contexts.size(), kNone);
  auto fnOfContext = [&](uint64_t ctx) {
    if (ctxFn[ctx] == kNone)
      ctxFn[ctx] = fnOf(contexts.object[ctx], contexts.file[ctx], contexts.function[ctx]);
    return ctxFn[ctx];
  };
  PairMap inlinedFn;  // (ctx, file) -> function
  PairMap edgeIndex;  // (caller, callee) -> edge
  uint64_t lastCtx = kNone, lastFile = 0, lastFn = 0;

  for (auto part : root.getParts()) {
    CostTableBatches t(part.getCosts(), npos, ne, contexts.size());
    while (t.next()) {
      size_t ci = 0, ai = 0;
      // Locals: the loop stores through uint64_t pointers, which could alias the vectors.
      const uint64_t *kind = t.kind.data(), *context = t.context.data();
      const uint64_t *sourceFile = t.sourceFile.data(), *costCount = t.costCount.data();
      const uint64_t* costs = t.costs.data();
      uint64_t* selfCosts = self_.data();
      for (size_t r = 0; r < t.rows; ++r) {
        const size_t n = costCount[r];
        const uint64_t* c = costs + ci;
        ci += n;
        const uint64_t ctx = context[r];
        uint64_t fn;
        if (sourceFile[r] == 0) {
          fn = ctxFn[ctx];
          if (fn == kNone) [[unlikely]] {
            fn = fnOfContext(ctx);
            selfCosts = self_.data();  // fnOf grows self_
          }
        } else if (ctx == lastCtx && sourceFile[r] == lastFile) {  // runs of inlined rows
          fn = lastFn;
        } else {
          bool inserted;
          uint64_t& f = inlinedFn.findOrInsert(ctx, sourceFile[r], 0, inserted);
          if (inserted) f = fnOf(contexts.object[ctx], sourceFile[r], contexts.function[ctx]);
          fn = lastFn = f;
          lastCtx = ctx;
          lastFile = sourceFile[r];
          selfCosts = self_.data();
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
        const uint64_t callee = fnOfContext(t.target[a]);
        selfCosts = self_.data();
        bool inserted;
        const uint64_t e = edgeIndex.findOrInsert(fn, callee, edges_.size(), inserted);
        if (inserted) addEdge(fn, callee, 0);
        edges_[e].calls += t.count[a];
        uint64_t* inclusive = edgeCost(e);
        for (size_t i = 0; i < n; ++i) inclusive[i] += c[i];
      }
    }
  }

  calls_.assign(functions_.size(), 0);
  for (const CallEdge& e : edges_) calls_[e.callee] += e.calls;

  // Inclusive: a function with callers other than itself costs what those calls cost; any
  // other function costs its self cost plus its calls to others (recursive calls counted once).
  const size_t nf = functions_.size();
  inclusive_.assign(nf * ne, 0);
  std::vector<bool> called(nf, false);
  for (size_t k = 0; k < edges_.size(); ++k) {
    const CallEdge& e = edges_[k];
    if (e.caller == e.callee) continue;
    called[e.callee] = true;
    for (size_t i = 0; i < ne; ++i) inclusive_[e.callee * ne + i] += edgeCost(k)[i];
  }
  for (size_t f = 0; f < nf; ++f)
    if (!called[f])
      for (size_t i = 0; i < ne; ++i) inclusive_[f * ne + i] = self_[f * ne + i];
  for (size_t k = 0; k < edges_.size(); ++k) {
    const CallEdge& e = edges_[k];
    if (e.caller == e.callee || called[e.caller]) continue;
    for (size_t i = 0; i < ne; ++i) inclusive_[e.caller * ne + i] += edgeCost(k)[i];
  }

  profile_ = &profile;
}

void CallGraph::fromXray(const Profile& profile, const std::vector<std::string>* names,
                         long thread) {
  XrayAccount account = accountXray(profile);
  for (const XrayThreadAccount& t : account.threads) threads_.push_back({t.pid, t.threadId});
  if (thread >= static_cast<long>(account.threads.size()))
    throw Error(Status::invalidArgument, "",
                "thread index " + std::to_string(thread) + " out of range: the trace has " +
                    std::to_string(account.threads.size()) + " threads");
  const std::vector<XrayFunctionStats>& stats =
      thread < 0 ? account.functions : account.threads[static_cast<size_t>(thread)].functions;
  const std::vector<XrayCallEdge>& calls =
      thread < 0 ? account.edges : account.threads[static_cast<size_t>(thread)].edges;
  eventNames_ = {"ticks"};
  if (account.cycleFrequency > 0 && account.cycleFrequency < 1e15)
    unitsPerSecond_ = account.cycleFrequency;
  // The frequency comes from the file: print it without converting an arbitrary double.
  char hz[64];
  std::snprintf(hz, sizeof hz, "%.0f", account.cycleFrequency);
  eventLongNames_ = {std::string("TSC ticks (") + hz + " per second)"};
  std::unordered_map<uint32_t, uint64_t> index;
  auto fn = [&](uint32_t id) {
    auto [it, inserted] = index.try_emplace(id, functions_.size());
    if (inserted) {
      std::string name = names && id < names->size() && !(*names)[id].empty()
                             ? (*names)[id]
                             : "function " + std::to_string(id);
      functions_.push_back({std::move(name), "", ""});
      self_.push_back(0);
      inclusive_.push_back(0);
    }
    return it->second;
  };
  for (const XrayFunctionStats& f : stats) {
    if (f.calls == 0 && f.inclusiveTicks == 0 && f.selfTicks == 0) continue;
    uint64_t i = fn(f.functionId);
    self_[i] = f.selfTicks;
    inclusive_[i] = f.inclusiveTicks;
    calls_.resize(functions_.size(), 0);
    calls_[i] = f.calls;
  }
  for (const XrayCallEdge& e : calls) {
    if (e.caller == 0) continue;  // a call at the bottom of a stack has no caller
    const uint64_t caller = fn(e.caller), callee = fn(e.callee);
    edgeCost(addEdge(caller, callee, e.calls))[0] = e.ticks;
  }
}

void CallGraph::fromStacks(const Profile& profile) {
  eventNames_ = {"samples"};
  std::unordered_map<uint64_t, uint64_t> index;  // address -> function
  for (const AddressSamples& a : samplesByAddress(profile)) {
    index.emplace(a.address, functions_.size());
    functions_.push_back({a.location, "", a.object});
    self_.push_back(a.self);
    inclusive_.push_back(a.inclusive);
  }
  // Edges: an edge counts once per record even if recursion repeats it.
  for (const CallEdgeSamples& e : callEdges(profile))
    edgeCost(addEdge(index.at(e.caller), index.at(e.callee), 0))[0] += e.samples;
}

void CallGraph::fromDcpi(const Profile& profile) {
  auto images = profile.root().getImages();
  for (size_t i = 0; i < images.size(); ++i) {
    DcpiImage image = decodeDcpiImage(images[static_cast<unsigned>(i)]);
    long e = eventIndex(image.event);
    if (e < 0) {
      e = static_cast<long>(eventNames_.size());
      eventNames_.push_back(image.event);
      // Widen the per-function cost rows for the new event.
      std::vector<uint64_t> wider(functions_.size() * eventNames_.size(), 0);
      for (size_t f = 0; f < functions_.size(); ++f)
        for (size_t k = 0; k + 1 < eventNames_.size(); ++k)
          wider[f * eventNames_.size() + k] = self_[f * (eventNames_.size() - 1) + k];
      self_ = std::move(wider);
    }
    const size_t ne = eventNames_.size();
    for (const DcpiAddressSamples& a : dcpiSamplesByAddress(profile, i)) {
      std::string name = "0x";
      static const char* hex = "0123456789abcdef";
      std::string digits;
      for (uint64_t v = a.address; v || digits.empty(); v >>= 4)
        digits.insert(digits.begin(), hex[v & 15]);
      functions_.push_back({name + digits, "", image.path});
      self_.resize(functions_.size() * ne, 0);
      self_[(functions_.size() - 1) * ne + static_cast<size_t>(e)] = a.samples;
    }
  }
  inclusive_ = self_;  // no call information: inclusive is self
}

std::vector<const CallEdge*> CallGraph::callers(uint64_t f) const {
  std::vector<const CallEdge*> out;
  for (const CallEdge& e : edges_)
    if (e.callee == f) out.push_back(&e);
  return out;
}

std::vector<const CallEdge*> CallGraph::callees(uint64_t f) const {
  std::vector<const CallEdge*> out;
  for (const CallEdge& e : edges_)
    if (e.caller == f) out.push_back(&e);
  return out;
}

std::vector<uint64_t> CallGraph::top(size_t event, bool incl, size_t n) const {
  std::vector<uint64_t> order(functions());
  std::iota(order.begin(), order.end(), 0);
  auto cost = [&](uint64_t f) { return incl ? inclusive(f, event) : self(f, event); };
  n = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(),
                    [&](uint64_t a, uint64_t b) {
                      if (cost(a) != cost(b)) return cost(a) > cost(b);
                      if (functions_[a].name != functions_[b].name)
                        return functions_[a].name < functions_[b].name;
                      return functions_[a].file < functions_[b].file;
                    });
  order.resize(n);
  return order;
}

namespace {
// Number of trailing path components two file names share ("a/b/c.c" and "x/b/c.c": 2).
size_t commonComponents(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (!a.empty() && !b.empty()) {
    size_t sa = a.rfind('/'), sb = b.rfind('/');
    std::string_view ca = sa == a.npos ? a : a.substr(sa + 1);
    std::string_view cb = sb == b.npos ? b : b.substr(sb + 1);
    if (ca != cb || ca.empty()) break;
    ++n;
    a = sa == a.npos ? std::string_view() : a.substr(0, sa);
    b = sb == b.npos ? std::string_view() : b.substr(0, sb);
  }
  return n;
}
}  // namespace

const std::unordered_map<std::string, std::vector<LineCost>>& CallGraph::lineIndex() const {
  std::call_once(linesOnce_, [&] {
    if (!profile_) return;
    auto root = profile_->root();
    const StringTableReader& strings = profile_->strings();
    DecodedContexts contexts(root.getContexts(), strings.size());
    const size_t ne = events(), npos = root.getPositionKinds().size();
    long linePos = -1;
    for (unsigned i = 0; i < npos; ++i)
      if (root.getPositionKinds()[i] == ir::PositionKind::LINE) linePos = i;
    if (linePos < 0) return;
    std::unordered_map<uint64_t, std::map<uint64_t, std::vector<uint64_t>>> fileLines;
    for (auto part : root.getParts()) {
      CostTableBatches t(part.getCosts(), npos, ne, contexts.size(), /*withPositions=*/true);
      while (t.next()) {
        size_t ci = 0;
        for (size_t r = 0; r < t.rows; ++r) {
          const size_t n = t.costCount[r];
          const uint64_t* c = t.costs.data() + ci;
          ci += n;
          if (t.kind[r] != static_cast<uint64_t>(ir::RecordKind::COST)) continue;
          const uint64_t file = t.sourceFile[r] ? t.sourceFile[r] : contexts.file[t.context[r]];
          auto& lc = fileLines[file][t.positions[static_cast<size_t>(linePos)][r]];
          lc.resize(ne, 0);
          for (size_t i = 0; i < n; ++i) lc[i] += c[i];
        }
      }
    }
    for (auto& [file, byLine] : fileLines) {
      auto& out = lines_[std::string(strings.get(file))];
      for (auto& [line, cost] : byLine) out.push_back({line, std::move(cost)});
    }
  });
  return lines_;
}

std::vector<LineCost> CallGraph::lines(std::string_view file) const {
  const auto& index = lineIndex();
  auto it = index.find(std::string(file));
  if (it != index.end()) return it->second;
  // An editor knows the file by its path on this machine; the profile may name it by the
  // path it had where the program was built. Take the names sharing the most trailing path
  // components with `file` (at least the base name), merging several equally good ones.
  size_t best = 0;
  for (auto& [name, lc] : index) best = std::max(best, commonComponents(name, file));
  if (best == 0) return {};
  std::vector<LineCost> merged;
  for (auto& [name, lc] : index)
    if (commonComponents(name, file) == best) merged.insert(merged.end(), lc.begin(), lc.end());
  std::sort(merged.begin(), merged.end(), [](auto& a, auto& b) { return a.line < b.line; });
  std::vector<LineCost> out;
  for (auto& l : merged) {
    if (!out.empty() && out.back().line == l.line) {
      for (size_t i = 0; i < l.cost.size(); ++i) out.back().cost[i] += l.cost[i];
    } else {
      out.push_back(l);
    }
  }
  return out;
}

long CallGraph::eventIndex(std::string_view name) const {
  for (size_t i = 0; i < eventNames_.size(); ++i)
    if (eventNames_[i] == name) return static_cast<long>(i);
  return -1;
}

}  // namespace profpack
