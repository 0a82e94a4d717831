#include "formats/xray/account.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "error.h"
#include "ir/column.h"

namespace profpack {

namespace {

struct Frame {
  uint32_t fid;
  uint64_t entry;
  uint64_t childTicks;
};

// Figures while the calls come, in hash maps (a tree map's lookups were the accounting's
// largest cost), sorted by id when emitted: per thread, and for the whole trace the threads'
// added up. Nothing is sized by a function id: a trace can have a thread per 32 bytes, each
// calling a function of any 28-bit id.
struct Acc {
  struct Hash {
    size_t operator()(uint64_t k) const { return std::hash<uint64_t>()(k * 0x9e3779b97f4a7c15u); }
  };
  bool keepDurations = true;
  std::unordered_map<uint32_t, std::vector<uint64_t>> durations;
  std::unordered_map<uint32_t, XrayFunctionStats, Hash> stats;
  std::unordered_map<uint64_t, XrayCallEdge, Hash> edges;  // by caller << 32 | callee
};

// llvm-xray account's order statistics: nth_element at size/2, floor(size*0.9),
// floor(size*0.99).
void finish(XrayFunctionStats& s, std::vector<uint64_t>& d) {
  if (d.empty()) return;
  s.minTicks = *std::min_element(d.begin(), d.end());
  s.maxTicks = *std::max_element(d.begin(), d.end());
  auto at = [&](size_t k) {
    std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(k), d.end());
    return d[k];
  };
  s.medianTicks = at(d.size() / 2);
  s.p90Ticks = at(static_cast<size_t>(std::floor(d.size() * 0.9)));
  s.p99Ticks = at(static_cast<size_t>(std::floor(d.size() * 0.99)));
}

// Adds thread `t`'s figures to `all`.
void add(Acc& all, const Acc& t) {
  for (const auto& [fid, s] : t.stats) {
    XrayFunctionStats& a = all.stats[fid];
    a.functionId = fid;
    a.calls += s.calls;
    a.sumTicks += s.sumTicks;
    a.selfTicks += s.selfTicks;
    a.inclusiveTicks += s.inclusiveTicks;
  }
  for (const auto& [k, e] : t.edges) {
    XrayCallEdge& a = all.edges[k];
    a.caller = e.caller;
    a.callee = e.callee;
    a.calls += e.calls;
    a.ticks += e.ticks;
  }
  if (all.keepDurations)
    for (const auto& [fid, d] : t.durations) {
      std::vector<uint64_t>& a = all.durations[fid];
      a.insert(a.end(), d.begin(), d.end());
    }
}

void emit(Acc& a, std::vector<XrayFunctionStats>& fns, std::vector<XrayCallEdge>& edges) {
  const size_t f0 = fns.size(), e0 = edges.size();
  for (auto& [fid, s] : a.stats) {
    auto d = a.durations.find(fid);
    if (d != a.durations.end()) finish(s, d->second);
    fns.push_back(s);
  }
  for (auto& [k, e] : a.edges) edges.push_back(e);
  std::sort(fns.begin() + static_cast<ptrdiff_t>(f0), fns.end(),
            [](const XrayFunctionStats& x, const XrayFunctionStats& y) {
              return x.functionId < y.functionId;
            });
  std::sort(edges.begin() + static_cast<ptrdiff_t>(e0), edges.end(),
            [](const XrayCallEdge& x, const XrayCallEdge& y) {
              return x.caller != y.caller ? x.caller < y.caller : x.callee < y.callee;
            });
}

void record(Acc& a, uint32_t fid, uint32_t caller, uint64_t d, uint64_t self, bool outermost) {
  XrayFunctionStats& s = a.stats[fid];
  s.functionId = fid;
  ++s.calls;
  s.sumTicks += d;
  s.selfTicks += self;
  if (outermost) s.inclusiveTicks += d;
  if (a.keepDurations) a.durations[fid].push_back(d);
  XrayCallEdge& e = a.edges[uint64_t{caller} << 32 | fid];
  e.caller = caller;
  e.callee = fid;
  ++e.calls;
  e.ticks += d;
}

// Calls of each function on one thread's stack, by function id (sparse: nothing is sized by an
// id; a thread's table holds the functions it entered).
class DepthCounter {
 public:
  uint32_t get(uint32_t id) const {
    auto it = map_.find(id);
    return it == map_.end() ? 0 : it->second;
  }
  void up(uint32_t id) { ++map_[id]; }
  // Returns the depth left.
  uint32_t down(uint32_t id) {
    auto it = map_.find(id);
    if (it == map_.end() || it->second == 0) return 0;  // not reached while kept right
    return --it->second;
  }

 private:
  std::unordered_map<uint32_t, uint32_t> map_;
};

// What the accounting reads of one record.
struct CallRecord {
  uint8_t type;  // an XrayRecordType; only function records (< 4) count
  uint32_t functionId;
  uint64_t tsc;
};

// Record index ranges per (pid, thread), each thread's in time order.
using ThreadRanges =
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint64_t, uint64_t>>>;

// One thread's accounting as its records come, in time order.
struct ThreadState {
  Acc acc;
  XrayThreadAccount t;
  std::vector<Frame> stack;
  std::vector<uint32_t> fids;      // the function ids on `stack`, for the visitor
  std::vector<uint64_t> contexts;  // the calling context of each frame, if the visitor keeps them
  DepthCounter depth;
};

// What every thread adds to: the whole trace's figures.
struct Totals {
  XrayAccount out;
  Acc all;
  bool anyCall = false;
  XrayCallVisitor* visitor;
  XrayContexts* contexts;  // the visitor's, or null
  bool figures;            // the per-function and per-edge figures are wanted
};

// Ends the call on top of `s`'s stack at `exit`: its duration, its self ticks (the duration less
// its callees' durations), the visitor's call and the figures; its duration goes to its caller.
inline void endCall(ThreadState& s, uint32_t threadIndex, uint64_t exit, Totals& tot) {
  XrayCallVisitor* visitor = tot.visitor;
  Frame f = s.stack.back();
  if (!tot.anyCall || f.entry < tot.out.firstEntry) tot.out.firstEntry = f.entry;
  tot.anyCall = true;
  bool outermost = s.depth.down(f.fid) == 0;
  uint64_t d = exit - f.entry;
  uint64_t self = d >= f.childTicks ? d - f.childTicks : 0;
  if (visitor) {
    const uint64_t context = tot.contexts ? s.contexts.back() : XrayContexts::kNone;
    visitor->call({threadIndex, &s.fids, context, f.entry, exit, self});
    s.fids.pop_back();
  }
  if (tot.contexts) s.contexts.pop_back();
  s.stack.pop_back();
  uint32_t caller = s.stack.empty() ? 0 : s.stack.back().fid;
  if (!s.stack.empty()) s.stack.back().childTicks += d;
  if (!tot.figures) return;
  record(s.acc, f.fid, caller, d, self, outermost);
}

inline void step(ThreadState& s, uint32_t threadIndex, const CallRecord& r, Totals& tot) {
  if (!xrayIsFunction(r.type)) return;
  if (r.type == kXrayEnter || r.type == kXrayEnterArg) {
    s.stack.push_back({r.functionId, r.tsc, 0});
    if (tot.visitor) s.fids.push_back(r.functionId);
    if (tot.contexts)
      s.contexts.push_back(tot.contexts->child(
          s.contexts.empty() ? XrayContexts::kNone : s.contexts.back(), r.functionId));
    s.depth.up(r.functionId);
    return;
  }
  // An exit of a function not on the stack is found without a scan of the stack (which, for
  // exits of a deep stack, would take time quadratic in its depth); any frames scanned are popped.
  if (s.depth.get(r.functionId) == 0) {
    ++s.t.unmatchedExits;
    return;
  }
  size_t k = s.stack.size();
  while (k > 0 && s.stack[k - 1].fid != r.functionId) --k;
  if (k == 0) {  // not reached while the depths are kept right
    ++s.t.unmatchedExits;
    return;
  }
  // The frames above the function that returned never returned themselves (an exception or a
  // longjmp went past them, or their exit was not recorded): each ends here, when the trace
  // first shows that their caller resumed, as `llvm-xray account -d` ends them. Their callees'
  // time stays theirs, so that every tick of the thread is some call's self time once.
  while (s.stack.size() > k) {
    ++s.t.unfinishedEntries;
    endCall(s, threadIndex, r.tsc, tot);
  }
  endCall(s, threadIndex, r.tsc, tot);
}

inline void finishThread(ThreadState& s, Totals& tot) {
  s.t.unfinishedEntries += s.stack.size();
  for (const Frame& f : s.stack) s.t.unfinished.insert(f.fid);
  add(tot.all, s.acc);
  emit(s.acc, s.t.functions, s.t.edges);
  tot.out.unmatchedExits += s.t.unmatchedExits;
  tot.out.unfinishedEntries += s.t.unfinishedEntries;
  tot.out.threads.push_back(std::move(s.t));
}

Totals startTotals(double cycleFrequency, XrayCallVisitor* visitor, bool orderStatistics) {
  Totals tot;
  tot.out.cycleFrequency = cycleFrequency;
  tot.all.keepDurations = orderStatistics;
  tot.visitor = visitor;
  tot.contexts = visitor ? visitor->contexts() : nullptr;
  tot.figures = !visitor || visitor->figures();
  return tot;
}

template <class Get>  // Get(i) -> CallRecord of record i
XrayAccount account(const ThreadRanges& ranges, Get&& get, double cycleFrequency,
                    XrayCallVisitor* visitor, bool orderStatistics) {
  Totals tot = startTotals(cycleFrequency, visitor, orderStatistics);
  for (auto& [key, rs] : ranges) {
    ThreadState s;
    s.acc.keepDurations = orderStatistics;
    s.t.pid = key.first;
    s.t.threadId = key.second;
    const uint32_t index = static_cast<uint32_t>(tot.out.threads.size());
    for (auto [from, to] : rs)
      for (uint64_t i = from; i < to; ++i) step(s, index, get(i), tot);
    finishThread(s, tot);
  }
  emit(tot.all, tot.out.functions, tot.out.edges);
  return std::move(tot.out);
}

[[noreturn]] void corrupt(const std::string& what) {
  throw Error(Status::malformed, "ppk", "XRay trace: " + what);
}

}  // namespace

uint64_t XrayContexts::child(uint64_t from, uint32_t id) {
  auto [it, added] = index_.try_emplace({from, id}, fid.size());
  if (added) {
    fid.push_back(id);
    parent.push_back(from);
  }
  return it->second;
}

XrayAccount accountXray(const XrayTrace& x, XrayCallVisitor* visitor, bool orderStatistics) {
  ThreadRanges ranges;
  if (x.fdr) {
    for (uint32_t bi : x.threadOrder) {
      const XrayBuffer& b = x.buffers[bi];
      ranges[{b.pid, b.threadId}].push_back({b.firstRecord, b.firstRecord + b.recordCount});
    }
  } else {
    for (uint64_t i = 0; i < x.records.size(); ++i) {
      auto& v = ranges[{x.records[i].pid, x.records[i].threadId}];
      if (!v.empty() && v.back().second == i)
        v.back().second = i + 1;
      else
        v.push_back({i, i + 1});
    }
  }
  return account(
      ranges,
      [&](uint64_t i) {
        const XrayRecord& r = x.records[i];
        return CallRecord{r.type, r.functionId, r.tsc};
      },
      static_cast<double>(x.cycleFrequency), visitor, orderStatistics);
}

XrayAccount accountXray(const Profile& profile, XrayCallVisitor* visitor, bool orderStatistics) {
  auto root = profile.root();
  if (root.getFormat() != ir::Format::XRAY || !root.hasTrace() ||
      root.getTrace().getMode() != ir::Trace::Mode::FDR)
    return accountXray(decodeXray(profile), visitor, orderStatistics);
  // FDR: only the record codes, TSCs and buffers are read.
  auto t = root.getTrace();
  auto recs = t.getRecords();
  const uint64_t n = recs.getCount();
  auto buffers = t.getBuffers();
  uint64_t next = 0;
  for (auto b : buffers) {
    if (b.getFirstRecord() != next || b.getRecordCount() > n - next)
      corrupt("buffers do not partition the records");
    next += b.getRecordCount();
  }
  if (next != n) corrupt("buffers do not cover every record");
  ThreadRanges ranges;
  std::vector<int64_t> threadOf(buffers.size(), -1);  // buffer -> thread index (-1: not used)
  bool inFileOrder = true;  // every thread's buffers come in the file in their time order
  {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> lastBuffer;
    for (uint32_t bi : t.getThreadOrder()) {
      if (bi >= buffers.size()) corrupt("thread order names a buffer that does not exist");
      auto b = buffers[bi];
      const std::pair<uint32_t, uint32_t> key{b.getPid(), b.getThreadId()};
      ranges[key].push_back({b.getFirstRecord(), b.getFirstRecord() + b.getRecordCount()});
      auto [it, added] = lastBuffer.try_emplace(key, bi);
      if (!added) {
        inFileOrder &= bi > it->second;
        it->second = bi;
      }
      if (threadOf[bi] >= 0) inFileOrder = false;  // a buffer listed twice
      threadOf[bi] = 0;
    }
    int64_t index = 0;
    std::map<std::pair<uint32_t, uint32_t>, int64_t> indexOf;
    for (auto& [key, rs] : ranges) indexOf[key] = index++;
    for (uint32_t bi : t.getThreadOrder())
      threadOf[bi] = indexOf[{buffers[bi].getPid(), buffers[bi].getThreadId()}];
  }
  auto decode = [](uint64_t c, uint64_t tsc) {
    // Function records have an even code (kind in bits 1-3, function id above); the rest are
    // metadata, which the accounting skips.
    if ((c & 1) || c > 0xffffffffu) return CallRecord{kXrayMetadata, 0, tsc};
    return CallRecord{static_cast<uint8_t>((c >> 1) & 7), static_cast<uint32_t>(c >> 4), tsc};
  };
  const double frequency = static_cast<double>(t.getCycleFrequency());
  if (!inFileOrder) {  // random access: the two columns whole (16 bytes a record)
    std::vector<uint64_t> code = decodeColumn(recs.getCode());
    std::vector<uint64_t> tsc = decodeColumn(recs.getTsc());
    if (code.size() != n || tsc.size() != n)
      corrupt("the code and tsc columns do not have one value per record");
    return account(
        ranges, [&](uint64_t i) { return decode(code[i], tsc[i]); }, frequency, visitor,
        orderStatistics);
  }
  // One pass in file order, a window of the columns at a time, each buffer's records going to
  // its thread's state: the columns are never whole in memory.
  Totals tot = startTotals(frequency, visitor, orderStatistics);
  std::vector<ThreadState> states(ranges.size());
  {
    size_t k = 0;
    for (auto& [key, rs] : ranges) {
      states[k].acc.keepDurations = orderStatistics;
      states[k].t.pid = key.first;
      states[k].t.threadId = key.second;
      ++k;
    }
  }
  ColumnCursor code(recs.getCode()), tsc(recs.getTsc());
  if (code.size() != n || tsc.size() != n)
    corrupt("the code and tsc columns do not have one value per record");
  constexpr size_t kWindow = 4096;
  uint64_t c[kWindow], ts[kWindow];
  for (size_t bi = 0; bi < buffers.size(); ++bi) {
    uint64_t left = buffers[static_cast<unsigned>(bi)].getRecordCount();
    const int64_t thread = threadOf[bi];
    while (left > 0) {
      const size_t w = static_cast<size_t>(std::min<uint64_t>(left, kWindow));
      code.read(c, w);
      tsc.read(ts, w);
      left -= w;
      if (thread < 0) continue;
      ThreadState& s = states[static_cast<size_t>(thread)];
      for (size_t i = 0; i < w; ++i)
        step(s, static_cast<uint32_t>(thread), decode(c[i], ts[i]), tot);
    }
  }
  code.finish();
  tsc.finish();
  for (ThreadState& s : states) finishThread(s, tot);
  emit(tot.all, tot.out.functions, tot.out.edges);
  return std::move(tot.out);
}

}  // namespace profpack
