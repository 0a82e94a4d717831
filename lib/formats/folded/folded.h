// Folded (collapsed) stacks, the input of flamegraph.pl, speedscope and Perfetto: one line per
// distinct stack, `outer;...;inner COUNT`, written from a profile's model and read (as
// flamegraph.pl's stackcollapse scripts, inferno and py-spy write them) into a CallTree.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// Each stack of the model's stacks layer with a nonzero cost of `event` (its index in the
// model's events), its frames' function names joined by ';' (a ';' inside a name becomes ':',
// as the format has no escape). Status::unsupported if the model has no stacks.
// What starts each line where processes are named (PROFPACK_WRITE_FOLDED_PROCESS), as
// stackcollapse-perf.pl's default, --pid and --tid.
enum class FoldedProcess { comm = 0, commPid = 1, commPidTid = 2, none = 3 };

// Where the model's threads name their processes (perf's comm) and `perThread` gives each
// thread's model, each line starts with the process name (spaces as '_'; with its pid, or pid
// and tid, as `process` says), and lines that are then the same are one, as
// stackcollapse-perf.pl writes perf's samples. The stacks' figures per thread come from the
// model's stack layer where it splits them (StackLayer::threadValues), else from `perThread`.
void writeFolded(const Model& model, const ModelFor& perThread, size_t event, Sink& out,
                 FoldedProcess process = FoldedProcess::comm);
void writeFolded(const Model& model, size_t event, Sink& out);
// The event whose counts a folded line holds: the first, `samples`, unless the model also
// counts each sampled event's samples apart (`EVENT_samples`, a perf recording of several
// events): then the first event's, as stackcollapse-perf.pl counts the samples of one event
// only ("merging together different types ... produces misleading results"), where
// `samples` adds up the samples of every event.
size_t foldedEvent(const Model& model);

// True if the first line of `data` that is not blank is a `stack COUNT` line.
bool isFolded(std::span<const uint8_t> data);
// One sample per line: its frames (split at ';', outermost first) and its count; blank lines
// are skipped. Status::malformed, with line and byte offset, for a line without a stack or
// without a whole-number count; a last line without a newline is a warning (strict: an error).
std::unique_ptr<Profile> readFolded(std::span<const uint8_t> data, const ReadOptions& options);

}  // namespace profpack
