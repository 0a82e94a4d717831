// Function call accounting of an XRay trace: what `llvm-xray account` prints (per function:
// call count, min/median/90th/99th percentile/max and sum of call durations), plus self and
// inclusive time and the caller -> callee edges of the reconstructed call stacks, per thread
// and overall.
//
// Stacks are rebuilt per (pid, thread) with the thread's buffers in time order. An exit whose
// function is not on the stack ("exit without entry", e.g. its entry was in a buffer that was
// overwritten) is skipped and counted in unmatchedExits. An exit of a function deeper in the
// stack shows that the frames above it never returned (an exception or a longjmp went past
// them): each is counted as a call that ended at that exit, when the trace first shows its
// caller resumed, as `llvm-xray account -d` counts it, and in unfinishedEntries. Its callees'
// time stays its own, so that each tick of a thread is one call's self time once. Entries
// still open at the end of the thread ("entry without exit": the buffer ran out) are counted in
// unfinishedEntries and have no duration, as in llvm-xray.
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "formats/xray/xray.h"

namespace profpack {

struct XrayFunctionStats {
  uint32_t functionId = 0;
  uint64_t calls = 0;           // completed calls (and calls ended by a caller's exit)
  uint64_t sumTicks = 0;        // sum of call durations (llvm-xray's "sum"; recursion nests)
  uint64_t inclusiveTicks = 0;  // time with the function on the stack (outermost calls only)
  uint64_t selfTicks = 0;       // durations minus the durations of the calls they made
  uint64_t minTicks = 0, medianTicks = 0, p90Ticks = 0, p99Ticks = 0, maxTicks = 0;
};

struct XrayCallEdge {
  uint32_t caller = 0;  // 0: the call was at the bottom of the stack
  uint32_t callee = 0;
  uint64_t calls = 0;
  uint64_t ticks = 0;  // sum of the callee's durations from this caller
};

struct XrayThreadAccount {
  uint32_t pid = 0, threadId = 0;
  std::vector<XrayFunctionStats> functions;  // by function id
  std::vector<XrayCallEdge> edges;           // by (caller, callee)
  uint64_t unmatchedExits = 0, unfinishedEntries = 0;
  std::set<uint32_t> unfinished;  // ids of the functions of the entries open at the end
};

struct XrayAccount {
  double cycleFrequency = 0;                 // Hz; seconds = ticks / cycleFrequency
  uint64_t firstEntry = 0;                   // the earliest entry TSC of a completed call
  std::vector<XrayFunctionStats> functions;  // over all threads, by function id
  std::vector<XrayCallEdge> edges;
  std::vector<XrayThreadAccount> threads;  // by (pid, thread)
  uint64_t unmatchedExits = 0, unfinishedEntries = 0;
  double seconds(uint64_t ticks) const { return cycleFrequency > 0 ? ticks / cycleFrequency : 0; }
};

// The calling contexts of a trace as a tree: context c is function fid[c] entered from context
// parent[c] (kNone at the bottom of a stack), so a stack of depth d costs one context, not d
// frames; a recursion n calls deep has n contexts where the stacks spelled out hold n^2 / 2
// frames. Contexts are shared by the threads and numbered as first entered: parent[c] < c.
struct XrayContexts {
  static constexpr uint64_t kNone = ~uint64_t{0};
  std::vector<uint32_t> fid;
  std::vector<uint64_t> parent;
  // The context of `fid` entered from `parent`, added if new.
  uint64_t child(uint64_t parent, uint32_t fid);

 private:
  struct KeyHash {
    size_t operator()(const std::pair<uint64_t, uint32_t>& k) const {
      return std::hash<uint64_t>()(k.first * 0x9e3779b97f4a7c15u ^ k.second);
    }
  };
  std::unordered_map<std::pair<uint64_t, uint32_t>, uint64_t, KeyHash> index_;
};

// One completed call, as the accounting matches it: its thread (index into
// XrayAccount::threads), the function ids on the stack from the outermost to it, its calling
// context (when the visitor keeps contexts), its entry and exit TSC and its self ticks (its
// duration less the durations of the calls it made).
struct XrayCall {
  uint32_t thread = 0;
  const std::vector<uint32_t>* stack = nullptr;  // outermost first; the callee last
  uint64_t context = XrayContexts::kNone;
  uint64_t entry = 0, exit = 0, selfTicks = 0;
};
class XrayCallVisitor {
 public:
  virtual ~XrayCallVisitor() = default;
  virtual void call(const XrayCall& call) = 0;
  // Where the accounting builds the calling contexts of the calls it visits; none by default.
  virtual XrayContexts* contexts() { return nullptr; }
  // false: only the calls are wanted, and the returned account's per-function and per-edge
  // figures are left empty (its thread list and unmatched/unfinished counts are kept).
  virtual bool figures() const { return true; }
};

// `orderStatistics` false leaves min/median/p90/p99/max at 0 and saves keeping every call's
// duration (8 bytes a call, twice) and selecting from them.
XrayAccount accountXray(const XrayTrace& trace, XrayCallVisitor* visitor = nullptr,
                        bool orderStatistics = true);
XrayAccount accountXray(const Profile& profile, XrayCallVisitor* visitor = nullptr,
                        bool orderStatistics = true);

}  // namespace profpack
