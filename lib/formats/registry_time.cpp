// When a profile says it was taken (registry.h, profileTime): the rule of each format that
// records a wall-clock time. Formats that record none are absent: gperftools, Callgrind and
// Cachegrind headers (`desc:`, `cmd:`) hold no time; a V8 CPU profile's startTime, trace
// events' timestamps and an XRay FDR trace's WallClockTime records (compiler-rt reads
// CLOCK_MONOTONIC for them: 239 s in tests/data/xray/fdr-v5-st.xray) count from an arbitrary
// origin, not from 1970.
#include <cstdint>

#include "formats/registry.h"
#include "profile.h"

namespace profpack {

namespace {

constexpr int64_t kNanosPerSecond = 1000000000;

// pprof: time_nanos, the time of collection in nanoseconds since 1970 UTC (0: unset).
int64_t pprofTime(ir::Profile::Reader r) {
  if (!r.hasPprof()) return 0;
  const int64_t ns = r.getPprof().getTimeNanos();
  return ns > 0 ? ns / kNanosPerSecond : 0;
}

struct TimeRule {
  FormatId format;
  int64_t (*time)(ir::Profile::Reader root);
};
constexpr TimeRule kTimeRules[] = {
    {FormatId::pprof, pprofTime},
};

}  // namespace

int64_t profileTime(const Profile& profile) {
  const FormatId f = formatOf(profile);
  for (const TimeRule& rule : kTimeRules)
    if (rule.format == f) return rule.time(profile.root());
  return 0;
}

}  // namespace profpack
