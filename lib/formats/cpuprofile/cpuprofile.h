// V8 CPU profiles (.cpuprofile: node --cpu-prof, Chrome DevTools' "Save profile"), read into a
// CallTree: nodes with call frames, samples with their times, per-line ticks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "formats/codec.h"
#include "profile.h"

namespace profpack {

// True if `data` is a JSON object with a top-level "nodes" member (within its first MiB).
bool isCpuprofile(std::span<const uint8_t> data);
std::unique_ptr<Profile> readCpuprofile(std::span<const uint8_t> data, const ReadOptions& options);

}  // namespace profpack
