// The format-neutral model of a DCPI profile.
#pragma once

#include <memory>

#include "model/model.h"
#include "profile.h"

namespace profpack {

std::unique_ptr<ModelSource> imageModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
