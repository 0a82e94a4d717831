// A model's function layer and summary kept beside a profile's IR (lib/model/stored.capnp), so
// that reading them back costs their size, not a pass over the profile's records.
//
// They are written for profiles whose IR is large (kStoredModelMinIR): below that, computing
// them takes less time than the bytes would, and the bytes would weigh on small files. They are
// used only by the build that computed them (stored::Model.computedBy): another build computes
// everything from the IR, as its own code does.
#pragma once

#include <capnp/common.h>
#include <kj/array.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "model/model.h"
#include "profile.h"

namespace profpack {

inline constexpr size_t kStoredModelMinIR = size_t{1} << 20;

// What this build writes in stored::Model.computedBy. It names the library version and the
// revision of the layer's computation: raise kStoredModelRevision when a change to any source's
// functions() or summary() changes what a profile's layer holds without changing the version.
inline constexpr unsigned kStoredModelRevision = 7;
std::string storedModelAuthor();

// The function layer, capabilities and summary of `model`, a model of `profile`, as a flat
// stored::Model message, with the profile's Basics; "" where a list would pass Cap'n Proto's
// 2^29 - 1 element limit.
std::string encodeStoredModel(const Model& model, const Profile& profile);

// The Basics a stored model (checked by checkStoredModel) records of its profile, but for
// flatBytes. False where it records none.
bool storedProfileBasics(const kj::Array<capnp::word>& words, Profile::Basics& out);

// A source that answers capabilities(), functions() and summary() from a stored model (the
// words of a stored::Model message, checked by checkStoredModel) and every other layer from
// the source `make` returns, made on first need. Status::malformed where that source's
// function layer is not the stored one (the two must index functions alike).
std::unique_ptr<ModelSource> storedModelSource(std::shared_ptr<const kj::Array<capnp::word>> words,
                                               std::function<std::unique_ptr<ModelSource>()> make);

// The source of a model of `profile` for `options`: where the profile holds a stored model and
// `options` ask for the whole profile's model as stored (every thread, no tags, no binary, the
// profile's symbols), storedModelSource(its words, own); else own().
std::unique_ptr<ModelSource> sourceWithStoredModel(
    const Profile& profile, const ModelOptions& options,
    const std::function<std::unique_ptr<ModelSource>()>& own);

// The capabilities the profile's stored model records, where it has one and no symbol section
// (whose names the stored model would count); else 0.
uint32_t storedCapabilities(const Profile& profile);

// Whether `words` is a stored::Model this build computed (false: another build's, to be
// ignored). Status::malformed, with `offset` in `container`, where the message or its tables are
// inconsistent (a list of the wrong length, an index out of range).
bool checkStoredModel(const kj::Array<capnp::word>& words, uint64_t offset, const char* container);

}  // namespace profpack
