// Chrome Trace Event JSON (the Trace Event Format's JSON object form), for the Perfetto UI,
// chrome://tracing and speedscope, written from a profile's timeline.
#pragma once

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// One complete event ("ph":"X") per span of the model's timeline, with `ts` and `dur` in
// microseconds from the earliest time in the profile, `pid` and `tid` the span's thread's; one
// thread_name metadata event per thread. Streamed to `out`. Status::unsupported if the model
// has no timeline.
void writeTraceEvents(const Model& model, Sink& out);

}  // namespace profpack
