// Merging profiles: what cg_merge does for Cachegrind files and `go tool pprof -proto A B`
// for pprof, for profiles of any format, on the format-neutral model. Nothing here knows a
// format: the registry says how a merge of a format's profiles is stored.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/model.h"
#include "profile.h"

namespace profpack {

// Event renames applied to every input before events are matched (`--event cycles=Ir`):
// inputs whose events differ only in name can then be merged.
using EventRenames = std::map<std::string, std::string>;

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
std::unique_ptr<Model> mergeModels(std::span<const MergeInput> inputs,
                                   const EventRenames& renames = {});

// A rewrite of names, as cg_diff's --mod-filename/--mod-funcname: "s/REGEX/REPLACEMENT/" with
// any delimiter after the s and an optional g (every match, else the first); ECMAScript
// regular expressions, $1 .. $9 in the replacement.
class NameRewrite {
 public:
  // Status::invalidArgument for a malformed expression.
  explicit NameRewrite(const std::string& expression);
  std::string apply(const std::string& name) const;

 private:
  std::shared_ptr<const void> regex_;  // std::regex, kept out of this header
  std::string replacement_;
  bool global_ = false;
};

struct DiffOptions {
  std::vector<NameRewrite> modFilename, modFuncname;  // applied to both profiles, in order
  EventRenames eventRenames;
};

// NEW - BASE on the models, every figure of `current` less `base`'s (functions matched by
// object, file and name after the rewrites): the result's costs and call counts are signed
// (kCapSigned). Events as for mergeModels.
std::unique_ptr<Model> diffModels(const MergeInput& base, const MergeInput& current,
                                  const DiffOptions& options = {});
// The difference as a profile, in the registry's differenceFormat: Cachegrind if both are
// Cachegrind, with the header that format writes of its two inputs (differenceHeader: cg_diff's
// "Files compared:" and both commands); where both have stacks, a format that holds signed
// stacks, made by its own merge where that keeps a base apart (pprof, as `go tool pprof
// -diff_base`: NEW, then BASE negated and labelled as the base; without rewrites or renames);
// else Callgrind. Signed costs.
std::unique_ptr<Profile> diffProfiles(const MergeInput& base, const MergeInput& current,
                                      const DiffOptions& options = {});

// The merge as a profile of its own, stored in the format the registry keeps merges of the
// inputs' format in (Cachegrind files: Cachegrind with a merged summary; others: Callgrind,
// which holds per-function, per-line and per-arc figures and call counts), or merged by the
// format itself where it can keep more (gperftools: samples per identical stack).
std::unique_ptr<Profile> mergeProfiles(std::span<const MergeInput> inputs,
                                       const EventRenames& renames = {});

// The same, one profile at a time: each input can be freed once added, so memory is bounded
// by the merged result, not by the sum of the inputs. A stream whose first profile's format
// merges itself (gperftools) takes only profiles of that format.
class MergeStream {
 public:
  explicit MergeStream(EventRenames renames = {});
  ~MergeStream();
  void add(const MergeInput& input);  // throws profpack::Error naming the input
  std::unique_ptr<Profile> finish();  // at most once

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace profpack
