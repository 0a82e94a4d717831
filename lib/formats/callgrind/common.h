// What the Callgrind reader and writer share (internal to lib/formats/callgrind/).
#pragma once

#include <cstdint>

#include "profile.h"

namespace profpack::callgrind {

inline constexpr const char* kFmt = "callgrind";
inline constexpr uint64_t kUndef = ~uint64_t{0};
using Kind = ir::RecordKind;
// The id spaces of compressed names: ob/cob, fl/fi/fe/cfi/cfl/jfi, fn/cfn/jfn.
enum IdSpace { kObjects = 0, kFiles = 1, kFunctions = 2 };

}  // namespace profpack::callgrind
