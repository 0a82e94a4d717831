// The folded writer's parameters (collected by the registry; keys are profpack_write_param's).
#pragma once

#include "formats/codec.h"
#include "formats/folded/folded.h"

namespace profpack {

inline constexpr WriteParam kFoldedWriteParams[] = {
    {.key = 6,  // PROFPACK_WRITE_FOLDED_PROCESS
     .format = FormatId::folded,
     .cName = "PROFPACK_WRITE_FOLDED_PROCESS",
     .name = "folded-process",
     .help = "what starts each line where processes are named (perf): as stackcollapse-perf",
     .value = "comm, pid, tid or none",
     .lowest = 0,
     .highest = 3,
     .defaultValue = 0,
     .range = "0 (comm), 1 (comm-PID), 2 (comm-PID/TID) or 3 (nothing)",
     .choices = "comm=0,pid=1,tid=2,none=3"},
};

inline constexpr const WriteParam& kFoldedProcess = kFoldedWriteParams[0];

inline FoldedProcess foldedProcess(const WriteOptions& o) {
  return static_cast<FoldedProcess>(o.get(kFoldedProcess));
}

}  // namespace profpack
