// Chrome Trace Event JSON (the Trace Event Format's JSON object form), for the Perfetto UI,
// chrome://tracing and speedscope, written from a profile's timeline.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// One complete event ("ph":"X") per span of the model's timeline, with `ts` and `dur` in
// microseconds from the earliest time in the profile, `pid` and `tid` the span's thread's; one
// thread_name metadata event per thread (its name, else "thread TID"), a process_name one per
// process the model names. Of spans that begin together the outer comes first
// (viewers nest equal spans by file order). Streamed to `out`. Status::unsupported if the model
// has no timeline.
void writeTraceEvents(const Model& model, Sink& out);

// True if `data` starts as a JSON object or array (a V8 .cpuprofile is detected before it).
bool isTraceEvent(std::span<const uint8_t> data);
// Complete ("X") and begin/end ("B"/"E") events as spans per (pid, tid), thread and process
// names from metadata ("M") events, in the JSON array and object forms, streamed (no document
// tree). Other kinds of event are skipped with one warning per kind. Status::malformed with
// the byte offset and line for JSON that is not a trace; a trace cut short keeps its complete
// events with a warning (strict: an error).
std::unique_ptr<Profile> readTraceEvents(std::span<const uint8_t> data, const ReadOptions& options);

}  // namespace profpack
