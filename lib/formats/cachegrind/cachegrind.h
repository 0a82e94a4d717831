// Cachegrind profiles (cachegrind-manual.xml, "Cachegrind Output File Format"): reader and
// writer, on the cost tables shared with Callgrind (formats/callgrind/costs.h).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

std::unique_ptr<Profile> readCachegrind(std::span<const uint8_t> data,
                                        const ReadOptions& options = {});
// Writes the profile's cost tables (a Cachegrind or Callgrind profile) as Cachegrind text.
std::string writeCachegrind(const Profile& profile);
void writeCachegrind(const Profile& profile, Sink& out);
// Cachegrind text from a profile's model: its per-(function, line) self costs, `desc:`/`cmd:`
// from its description, a summary of its totals. Status::unsupported without lines.
void writeCachegrindModel(const Model& model, Sink& out);
// What cg_diff writes of the two profiles it compares, which cg_annotate shows: "desc: Files
// compared:   BASE; CURRENT" and "cmd: BASE_CMD; CURRENT_CMD".
HeaderPairs cachegrindDifferenceHeader(const Model& base, const std::string& baseName,
                                       const Model& current, const std::string& currentName);

}  // namespace profpack
