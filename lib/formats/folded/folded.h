// Folded (collapsed) stacks, the input of flamegraph.pl, speedscope and Perfetto: one line per
// distinct stack, `outer;...;inner COUNT`, written from a profile's model.
#pragma once

#include <string>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// Each stack of the model's stacks layer with a nonzero cost of `event` (its index in the
// model's events), its frames' function names joined by ';' (a ';' inside a name becomes ':',
// as the format has no escape). Status::unsupported if the model has no stacks.
void writeFolded(const Model& model, size_t event, Sink& out);

}  // namespace profpack
