// Merging profiles: what cg_merge does for Cachegrind files and `go tool pprof -proto A B`
// for pprof, for profiles of any format, on the format-neutral model. Nothing here knows a
// format: the registry says how a merge of a format's profiles is stored.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "model/model.h"
#include "profile.h"

namespace profpack {

struct MergeInput {
  const Profile* profile = nullptr;
  std::string name;  // for messages ("a.out"); "" names it by position
};

// The sum of the models of `inputs`: functions by (object, file, name), their self and
// inclusive costs and calls summed; call arcs by (caller, callee); per-line costs by (file,
// line) and (function, line) where every input has lines; stacks by identical function
// sequence where every input has stacks. Threads and timelines are not merged. The inputs
// must have the same events (by short name, in any order): Status::invalidArgument names the
// ones that differ. Zero inputs: Status::invalidArgument.
std::unique_ptr<Model> mergeModels(std::span<const MergeInput> inputs);

// The merge as a profile of its own, stored in the format the registry keeps merges of the
// inputs' format in (Cachegrind files: Cachegrind with a merged summary; others: Callgrind,
// which holds per-function, per-line and per-arc figures and call counts), or merged by the
// format itself where it can keep more (gperftools: samples per identical stack).
std::unique_ptr<Profile> mergeProfiles(std::span<const MergeInput> inputs);

}  // namespace profpack
