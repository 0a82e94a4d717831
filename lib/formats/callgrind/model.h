// The format-neutral model of a Callgrind-family profile (Callgrind and Cachegrind alike).
#pragma once

#include <memory>

#include "model/model.h"
#include "profile.h"

namespace profpack {

std::unique_ptr<ModelSource> costTableModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
