#include "formats/xray/account.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace profpack {

namespace {

struct Frame {
  uint32_t fid;
  uint64_t entry;
  uint64_t childTicks;
};

struct Acc {
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
  a.durations[fid].push_back(d);
  XrayCallEdge& e = a.edges[{caller, fid}];
  e.caller = caller;
  e.callee = fid;
  ++e.calls;
  e.ticks += d;
}

}  // namespace

XrayAccount accountXray(const XrayTrace& x, XrayCallVisitor* visitor) {
  XrayAccount out;
  out.cycleFrequency = static_cast<double>(x.cycleFrequency);
  // Record indices per thread, in time order.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint64_t, uint64_t>>> ranges;
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
  Acc all;
  for (auto& [key, rs] : ranges) {
    Acc th;
    XrayThreadAccount t;
    t.pid = key.first;
    t.threadId = key.second;
    std::vector<Frame> stack;
    std::vector<uint32_t> fids;  // the function ids on `stack`, for the visitor
    std::unordered_map<uint32_t, uint32_t> depth;
    for (auto [from, to] : rs) {
      for (uint64_t i = from; i < to; ++i) {
        const XrayRecord& r = x.records[i];
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
          stack.pop_back();
          ++t.unfinishedEntries;
        }
        if (visitor) fids.resize(stack.size());
        Frame f = stack.back();
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
    emit(th, t.functions, t.edges);
    out.unmatchedExits += t.unmatchedExits;
    out.unfinishedEntries += t.unfinishedEntries;
    out.threads.push_back(std::move(t));
  }
  emit(all, out.functions, out.edges);
  return out;
}

XrayAccount accountXray(const Profile& profile, XrayCallVisitor* visitor) {
  return accountXray(decodeXray(profile), visitor);
}

}  // namespace profpack
