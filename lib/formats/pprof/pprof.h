// pprof's profile.proto: read (every field, into the IR's Pprof section) and written, from a
// pprof IR as read or from any profile's model (what `go tool pprof` reads). The message is
// encoded and decoded here by hand, as Go's github.com/google/pprof/profile does: about 300
// lines each way, where a protobuf library would add a dependency and a code generator.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// Samples: the model's stacks where it has them (gperftools, XRay), leaf first; else one
// one-frame sample per instruction address (locations layer) or per function, each event a
// sample type. Status::unsupported if the model has no events.
std::string writePprof(const Model& model);

// Reading pprof (lib/formats/pprof/reader.cpp): a gzipped or bare profile.proto message.
// Detection: gzip data whose first inflated bytes, or bare bytes, decode as profile.proto's
// fields with their wire types.
bool isPprof(std::span<const uint8_t> data);
// Every field kept in the IR (ir::Pprof); refuses what pprof refuses (Status::malformed with
// the byte offset, in the gunzipped message for gzip input); the gzip data may inflate to at
// most options.maxPpkMessage bytes (Status::limit).
std::unique_ptr<Profile> readPprof(std::span<const uint8_t> data, const ReadOptions& options);
// A profile read from pprof written back: every field as read (ids as read; the string table
// holds the strings fields use, numbered in order of first use), gzipped where it was.
std::string writePprofIR(const Profile& profile);
// pprof profiles merged as Go's profile.Merge does (lib/formats/pprof/merge.cpp).
std::unique_ptr<FormatMerge> pprofMerge();
// Its model (lib/formats/pprof/model.cpp).
std::unique_ptr<ModelSource> pprofModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
