// Linux perf.data (`perf record`, tools/perf/Documentation/perf.data-file-format.txt): the
// reader, which keeps what the model needs (events, threads, mappings with build ids, the
// distinct stacks and every sample in time order), and the model of what it kept.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "formats/codec.h"
#include "model/model.h"
#include "profile.h"

namespace profpack {

// True if `data` starts with perf.data's magic ("PERFILE2", little-endian).
bool isPerfData(std::span<const uint8_t> data);
// Reads perf.data written to a file or to a pipe. Throws Error (malformed) with the byte offset
// of a record or header field whose size disagrees with the file; unknown record kinds are
// skipped with one warning per kind.
std::unique_ptr<Profile> readPerfData(std::span<const uint8_t> data);
// perf record --threads' directory (directory.cpp): null where `files` are not one.
std::unique_ptr<Profile> readPerfDirectory(const DirectoryFiles& dir, const ReadOptions& options);

// The files perf record found samples in, as its header's build-id table lists them (a path and
// a build id each), read without the records; none for a recording to a pipe (no table ahead),
// or where the header is malformed (reading the file says why).
std::vector<Mapping> perfBinariesAhead(std::span<const uint8_t> data);

// `perf script` text: detected by a sample line followed by a tab-indented frame line.
bool isPerfScript(std::span<const uint8_t> data);
std::unique_ptr<Profile> readPerfScript(std::span<const uint8_t> data);

// The model: functions are frames (an address in a process's mapping) named by their hex
// address until symbolized; events `samples` then each perf event's summed period; one thread
// per (pid, tid, comm).
std::unique_ptr<ModelSource> perfModel(const Profile& profile, const ModelOptions& options);

}  // namespace profpack
