// Symbolization (`profpack symbolize`, profpack_profile_symbolize): names, source files, lines
// and inline chains for the instruction addresses of a profile's model, found in the binaries
// its mappings name, stored in the IR's symbol section; and the model of a symbolized profile,
// which groups addresses into the functions the section names. Format-neutral: it reads the
// model's locations and stacks layers only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "profile.h"

namespace profpack {

struct SymbolizeOptions {
  // Directories searched (in order, after the path a mapping names) for a binary by its base
  // name; then those of the PROFPACK_BINARY_PATH environment variable (':'-separated).
  std::vector<std::string> binaryPath;
  // The program of a profile whose functions are ids (XRay: the instrumented executable),
  // which maps them to entry addresses and names them.
  std::string binary;
};

// A copy of `profile` with its symbol section (lib/ir/profile.capnp, Symbols), replacing any it
// had. Mappings that cannot be symbolized (binary missing, not a
// regular file, not ELF, no loadable segment at the mapping's offset) are warnings of the
// result, naming the mapping and the reason. A profile whose functions are named already
// (Callgrind, Cachegrind) comes back unchanged with a warning. One whose functions are ids
// (XRay) needs options.binary: each function is named, with the file and line of its entry.
std::unique_ptr<Profile> symbolizeProfile(const Profile& profile, const SymbolizeOptions& options);

// The model source of a symbolized profile: `inner` (the format's own source) with functions,
// lines and stacks regrouped by the names of the symbol section. Throws Status::malformed on a
// section whose columns disagree. `cache` (may be null) keeps the decoded section for the other
// models of the same task.
std::unique_ptr<ModelSource> symbolizedSource(std::unique_ptr<ModelSource> inner,
                                              const Profile& profile, ModelCache* cache = nullptr);

// The names of symbolized profiles, kept to name a profile made of them (a merge of several
// runs of the same program): each address by its object and its place in the object, so that
// a run that loaded the object elsewhere finds the same names.
class SymbolMemory {
 public:
  SymbolMemory();
  ~SymbolMemory();
  // Keeps the names of `profile`'s symbol section (none: nothing kept). The first profile's
  // names win where two name the same address.
  void add(const Profile& profile);
  bool empty() const;
  // `profile` with a symbol section of the kept names of its addresses, where its functions
  // are unnamed addresses and some name was kept; else `profile` as it is.
  std::unique_ptr<Profile> apply(std::unique_ptr<Profile> profile) const;

  struct Names;

 private:
  std::unique_ptr<Names> names_;
};

}  // namespace profpack
