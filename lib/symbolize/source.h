// The model of a symbolized profile: a format's own model source decorated with the names of
// the profile's symbol section (lib/ir/profile.capnp, Symbols). Addresses are grouped into the
// functions the section names, with lines and inline frames; function ids take their names,
// files and lines. Format-neutral: it reads the inner source's layers only.
#pragma once

#include <memory>

#include "model/model.h"
#include "profile.h"

namespace profpack {

// `inner` (the format's own source) with functions, lines and stacks regrouped by the names of
// `profile`'s symbol section, where the source has function ids, or addresses and no names;
// else `inner` itself. Throws Status::malformed on a section whose columns disagree. `cache`
// (may be null) keeps the decoded section for the other models of the same task.
std::unique_ptr<ModelSource> symbolizedSource(std::unique_ptr<ModelSource> inner,
                                              const Profile& profile, ModelCache* cache = nullptr);

// Makes every model of `profile` (Profile::sourceWrap) named by its symbol section, where it has
// one (and is not named by nameByTable() already); else leaves it as it is. Called on each
// profile before it is shared.
void nameBySymbolSection(Profile& profile);

struct SymbolTable;
// The same, with the section's table as it was found (the profile's section is not read).
void nameByTable(Profile& profile, std::shared_ptr<const SymbolTable> table);

}  // namespace profpack
