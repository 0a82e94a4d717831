// The questions an editor plugin asks: totals, per-function self and inclusive cost, per-line
// cost of one source file, callers and callees, top N. Built once per profile from the IR.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profile.h"

namespace profpack {

struct FunctionRow {
  std::string name;    // function name (or address / id where the format has no names)
  std::string file;    // source file ("" if unknown)
  std::string object;  // ELF object / mapping ("" if unknown)
};

struct CallEdge {
  uint64_t caller = 0;                  // function index
  uint64_t callee = 0;                  // function index
  uint64_t calls = 0;                   // call count (0 where the format does not count calls)
  const uint64_t* inclusive = nullptr;  // inclusive cost of the calls, one per event (owned by
                                        // the CallGraph: one array for all edges)
};

struct LineCost {
  uint64_t line = 0;
  std::vector<uint64_t> cost;  // self cost per event
};

// The query model of every format:
// - Callgrind/Cachegrind: functions are (object, file, name); events are the file's events.
// - XRay: functions are function ids (named from the instrumented binary when `names` is
//   given); one event "ticks" (TSC ticks), self and inclusive time from the reconstructed
//   stacks (lib/xray/account.h), edges with call counts and the callee's time.
// - gperftools: each program counter is a "function" named object+offset (or its hex address),
//   object = its mapping; one event "samples"; self = samples with it innermost, inclusive =
//   samples with it anywhere in the chain (once per record); edges from adjacent frames.
// - DCPI: each sampled instruction address is a "function" named by its hex address, object =
//   the image's path; one event named after the `event` header line.
class CallGraph {
 public:
  // `thread`: for XRay, restrict every figure to thread `thread` of threads() (-1: all).
  explicit CallGraph(const Profile& profile, const std::vector<std::string>* names = nullptr,
                     long thread = -1);
  CallGraph(const CallGraph&) = delete;  // edges point into edgeCosts_
  CallGraph& operator=(const CallGraph&) = delete;

  // The threads the profile's figures can be restricted to (XRay: (pid, thread id) pairs in
  // ascending order); empty for other formats.
  struct Thread {
    uint32_t pid = 0, threadId = 0;
  };
  const std::vector<Thread>& threads() const { return threads_; }

  size_t events() const { return eventNames_.size(); }
  const std::vector<std::string>& eventNames() const { return eventNames_; }
  const std::vector<std::string>& eventLongNames() const { return eventLongNames_; }
  size_t functions() const { return functions_.size(); }
  const FunctionRow& function(uint64_t f) const { return functions_[f]; }
  uint64_t self(uint64_t f, size_t e) const { return self_[f * events() + e]; }
  // Inclusive cost: self plus the cost of the calls it made, recursion counted once. Where
  // the format records inclusive call costs (Callgrind), a function that is called gets the
  // sum of the inclusive costs of its calls from other functions, as callgrind_annotate
  // reports it.
  uint64_t inclusive(uint64_t f, size_t e) const { return inclusive_[f * events() + e]; }
  uint64_t total(size_t e) const { return totals_[e]; }
  // Completed calls of function f: XRay, entries matched by exits; Callgrind, the call counts of
  // every call to it; 0 where the format does not count calls.
  uint64_t calls(uint64_t f) const { return f < calls_.size() ? calls_[f] : 0; }
  // Event units per second (XRay: the TSC frequency from the file header), or 0 if not time.
  double unitsPerSecond() const { return unitsPerSecond_; }
  const std::vector<CallEdge>& edges() const { return edges_; }
  std::vector<const CallEdge*> callers(uint64_t f) const;
  std::vector<const CallEdge*> callees(uint64_t f) const;
  // Functions sorted by descending cost of `event` (self or inclusive), ties by name.
  std::vector<uint64_t> top(size_t event, bool inclusive, size_t n) const;
  // Per-line self cost of one source file, ascending by line. `file` matches a name exactly,
  // else the names sharing the most trailing path components with it.
  std::vector<LineCost> lines(std::string_view file) const;
  // Index of an event by short name, or -1.
  long eventIndex(std::string_view name) const;

 private:
  void fromCostTables(const Profile& profile);
  void fromXray(const Profile& profile, const std::vector<std::string>* names, long thread);
  void fromDcpi(const Profile& profile);
  void fromStacks(const Profile& profile);
  std::vector<std::string> eventNames_, eventLongNames_;
  std::vector<FunctionRow> functions_;
  std::vector<uint64_t> self_, inclusive_, totals_, calls_;
  double unitsPerSecond_ = 0;
  std::vector<Thread> threads_;
  std::vector<CallEdge> edges_;
  std::vector<uint64_t> edgeCosts_;  // events() values per edge, in edge order
  // Appends an edge with zero costs; returns its index. Its costs are edgeCost(index).
  size_t addEdge(uint64_t caller, uint64_t callee, uint64_t calls);
  uint64_t* edgeCost(size_t edge) { return edgeCosts_.data() + edge * events(); }
  // Per-file line costs, built from the cost tables on the first lines() call (thread-safe).
  const std::unordered_map<std::string, std::vector<LineCost>>& lineIndex() const;
  const Profile* profile_ = nullptr;  // Callgrind family: the profile the lines come from
  mutable std::once_flag linesOnce_;
  mutable std::unordered_map<std::string, std::vector<LineCost>> lines_;
};

}  // namespace profpack
