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

struct Acc {
  bool keepDurations = true;
  std::map<uint32_t, std::vector<uint64_t>> durations;
  std::map<uint32_t, XrayFunctionStats> stats;
  std::map<std::pair<uint32_t, uint32_t>, XrayCallEdge> edges;
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

void emit(Acc& a, std::vector<XrayFunctionStats>& fns, std::vector<XrayCallEdge>& edges) {
  for (auto& [fid, s] : a.stats) {
    finish(s, a.durations[fid]);
    fns.push_back(s);
  }
  for (auto& [k, e] : a.edges) edges.push_back(e);
}

void record(Acc& a, uint32_t fid, uint32_t caller, uint64_t d, uint64_t self, bool outermost) {
  XrayFunctionStats& s = a.stats[fid];
  s.functionId = fid;
  ++s.calls;
  s.sumTicks += d;
  s.selfTicks += self;
  if (outermost) s.inclusiveTicks += d;
  if (a.keepDurations) a.durations[fid].push_back(d);
  XrayCallEdge& e = a.edges[{caller, fid}];
  e.caller = caller;
  e.callee = fid;
  ++e.calls;
  e.ticks += d;
}

// Calls of each function on the stack, by function id: ids are small in practice, but any
// 28-bit value is possible, so the ones beyond a table go to a map.
class DepthCounter {
 public:
  uint32_t& operator[](uint32_t id) {
    if (id >= kTable) return large_[id];
    if (id >= small_.size()) small_.resize(std::max<size_t>(id + 1, small_.size() * 2), 0);
    return small_[id];
  }

 private:
  static constexpr uint32_t kTable = 1u << 16;
  std::vector<uint32_t> small_;
  std::unordered_map<uint32_t, uint32_t> large_;
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

template <class Get>  // Get(i) -> CallRecord of record i
XrayAccount account(const ThreadRanges& ranges, Get&& get, double cycleFrequency,
                    XrayCallVisitor* visitor, bool orderStatistics) {
  XrayAccount out;
  out.cycleFrequency = cycleFrequency;
  Acc all;
  all.keepDurations = orderStatistics;
  bool anyCall = false;
  for (auto& [key, rs] : ranges) {
    Acc th;
    th.keepDurations = orderStatistics;
    XrayThreadAccount t;
    t.pid = key.first;
    t.threadId = key.second;
    std::vector<Frame> stack;
    std::vector<uint32_t> fids;  // the function ids on `stack`, for the visitor
    DepthCounter depth;
    for (auto [from, to] : rs) {
      for (uint64_t i = from; i < to; ++i) {
        const CallRecord r = get(i);
        if (!xrayIsFunction(r.type)) continue;
        if (r.type == kXrayEnter || r.type == kXrayEnterArg) {
          stack.push_back({r.functionId, r.tsc, 0});
          if (visitor) fids.push_back(r.functionId);
          ++depth[r.functionId];
          continue;
        }
        size_t k = stack.size();
        while (k > 0 && stack[k - 1].fid != r.functionId) --k;
        if (k == 0) {
          ++t.unmatchedExits;
          continue;
        }
        while (stack.size() > k) {
          --depth[stack.back().fid];
          t.unfinished.insert(stack.back().fid);
          stack.pop_back();
          ++t.unfinishedEntries;
        }
        if (visitor) fids.resize(stack.size());
        Frame f = stack.back();
        if (!anyCall || f.entry < out.firstEntry) out.firstEntry = f.entry;
        anyCall = true;
        bool outermost = --depth[f.fid] == 0;
        uint64_t d = r.tsc - f.entry;
        uint64_t self = d >= f.childTicks ? d - f.childTicks : 0;
        if (visitor) {
          visitor->call({static_cast<uint32_t>(out.threads.size()), &fids, f.entry, r.tsc, self});
          fids.pop_back();
        }
        stack.pop_back();
        uint32_t caller = stack.empty() ? 0 : stack.back().fid;
        if (!stack.empty()) stack.back().childTicks += d;
        record(th, f.fid, caller, d, self, outermost);
        record(all, f.fid, caller, d, self, outermost);
      }
    }
    t.unfinishedEntries += stack.size();
    for (const Frame& f : stack) t.unfinished.insert(f.fid);
    emit(th, t.functions, t.edges);
    out.unmatchedExits += t.unmatchedExits;
    out.unfinishedEntries += t.unfinishedEntries;
    out.threads.push_back(std::move(t));
  }
  emit(all, out.functions, out.edges);
  return out;
}

[[noreturn]] void corrupt(const std::string& what) {
  throw Error(Status::malformed, "ppk", "XRay trace: " + what);
}

}  // namespace

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
  // FDR: only the record codes, TSCs and buffers are read (16 bytes a record, where the whole
  // decoded trace takes about 48).
  auto t = root.getTrace();
  auto recs = t.getRecords();
  const uint64_t n = recs.getCount();
  std::vector<uint64_t> code = decodeColumn(recs.getCode());
  std::vector<uint64_t> tsc = decodeColumn(recs.getTsc());
  if (code.size() != n || tsc.size() != n)
    corrupt("the code and tsc columns do not have one value per record");
  auto buffers = t.getBuffers();
  uint64_t next = 0;
  for (auto b : buffers) {
    if (b.getFirstRecord() != next || b.getRecordCount() > n - next)
      corrupt("buffers do not partition the records");
    next += b.getRecordCount();
  }
  if (next != n) corrupt("buffers do not cover every record");
  ThreadRanges ranges;
  for (uint32_t bi : t.getThreadOrder()) {
    if (bi >= buffers.size()) corrupt("thread order names a buffer that does not exist");
    auto b = buffers[bi];
    ranges[{b.getPid(), b.getThreadId()}].push_back(
        {b.getFirstRecord(), b.getFirstRecord() + b.getRecordCount()});
  }
  return account(
      ranges,
      [&](uint64_t i) {
        const uint64_t c = code[i];
        // Function records have an even code (kind in bits 1-3, function id above); the rest
        // are metadata, which the accounting skips.
        if ((c & 1) || c > 0xffffffffu) return CallRecord{kXrayMetadata, 0, tsc[i]};
        return CallRecord{static_cast<uint8_t>((c >> 1) & 7), static_cast<uint32_t>(c >> 4),
                          tsc[i]};
      },
      static_cast<double>(t.getCycleFrequency()), visitor, orderStatistics);
}

}  // namespace profpack
