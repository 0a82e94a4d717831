// The two model sources of a CallTree (internal to lib/formats/calltree/).
#pragma once

#include <memory>
#include <string>

#include "formats/calltree/calltree.h"

namespace profpack {

// Samples on the tree's nodes (collapsed stacks, V8 CPU profiles).
std::unique_ptr<ModelSource> sampleModel(const Profile& profile, CallTreeData data);
// Spans per thread (Chrome trace events).
std::unique_ptr<ModelSource> spanModel(const Profile& profile, CallTreeData data,
                                       const ModelOptions& options);
// "microseconds" for 1000000, ...
std::string unitName(uint64_t unitsPerSecond);

}  // namespace profpack
