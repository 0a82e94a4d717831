// The format-neutral model of an XRay trace.
#pragma once

#include <memory>

#include "model/model.h"
#include "profile.h"

namespace profpack {

// `options.binary` names functions from the instrumented executable's xray_instr_map.
std::unique_ptr<ModelSource> xrayModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
