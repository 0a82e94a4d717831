// Whole-profile figures: what `profpack info` and profpack_profile_info() report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile.h"

namespace profpack {

struct Summary {
  ir::Format format = ir::Format::UNKNOWN;
  std::string formatVersion;
  uint64_t parts = 0;
  uint64_t records = 0;    // cost rows / samples / trace records / histogram chunks
  uint64_t functions = 0;  // distinct function names
  uint64_t files = 0;      // distinct source file names
  uint64_t objects = 0;    // distinct objects (ELF objects, mappings, images)
  uint64_t strings = 0;    // interned strings
};
// Events and their totals are not here: CallGraph (lib/ops/query.h) is the one place that
// defines them per format, for info and queries alike.

Summary summarize(const Profile& profile);

}  // namespace profpack
