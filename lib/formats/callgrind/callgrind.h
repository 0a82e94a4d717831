// Callgrind profiles (callgrind-format.xml): reader and writer. The cost tables they share with
// Cachegrind are coded in costs.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

// True if `data` is Callgrind text (a Callgrind-only header key or body line).
bool isCallgrind(std::span<const uint8_t> data);
// True if `data` is Cachegrind text (only desc:/cmd:/events: header lines, fl=/fn= bodies).
bool isCachegrind(std::span<const uint8_t> data);

std::unique_ptr<Profile> readCallgrind(std::span<const uint8_t> data,
                                       const ReadOptions& options = {});
// Several Callgrind files of one run (valgrind --separate-threads=yes: a file per thread) as
// one profile with a part per file (parts.cpp); the registry reads each on its own first, so
// that a defect is reported in its own file.
std::unique_ptr<Profile> readCallgrindParts(std::span<const std::span<const uint8_t>> files,
                                            const ReadOptions& options);
// Writes the profile's cost tables (a Callgrind or Cachegrind profile) as Callgrind text.
std::string writeCallgrind(const Profile& profile);
void writeCallgrind(const Profile& profile, Sink& out);
// Writes a profile of another format from its model (from_model.cpp): one part per thread,
// each from `perThread`'s model of it, where the model has more than one thread.
void writeCallgrindModel(const Model& model, const ModelFor& perThread, Sink& out);

}  // namespace profpack
