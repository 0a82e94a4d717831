// pprof's profile.proto, gzip-compressed, written from a profile's model (what `go tool pprof`
// reads). The message is encoded here by hand, as Go's runtime/pprof does: it is write-only,
// a dozen fields, and a protobuf library would add a dependency and a code generator for that.
#pragma once

#include <string>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// Samples: the model's stacks where it has them (gperftools, XRay), leaf first; else one
// one-frame sample per instruction address (locations layer) or per function, each event a
// sample type. Status::unsupported if the model has no events.
std::string writePprof(const Model& model);

}  // namespace profpack
