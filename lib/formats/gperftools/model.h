// The format-neutral model of a gperftools CPU profile.
#pragma once

#include <memory>

#include "model/model.h"
#include "profile.h"

namespace profpack {

std::unique_ptr<ModelSource> stackModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
