// The format-neutral model of a Callgrind-family profile (Callgrind and Cachegrind alike).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "profile.h"

namespace profpack {

std::unique_ptr<ModelSource> costTableModel(const Profile& profile, const ModelOptions& options);

// A difference's base totals (Model::baseTotal) as the value of a `desc:` line that Callgrind
// and Cachegrind text keep ("Base totals: Ir=N Dr=N", which cg_annotate and callgrind_annotate
// show as written); empty where the model records no base.
std::string baseTotalsDesc(const Model& model);
// Reads such a line back: true where `value` is one, with each named event's total set in
// `totals` (sized to `events`).
bool parseBaseTotalsDesc(std::string_view value, const std::vector<std::string>& events,
                         std::vector<uint64_t>& totals);

}  // namespace profpack
