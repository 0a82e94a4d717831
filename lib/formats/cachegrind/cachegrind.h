// Cachegrind profiles (cachegrind-manual.xml, "Cachegrind Output File Format"): reader and
// writer, on the cost tables shared with Callgrind (formats/callgrind/costs.h).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "formats/codec.h"

namespace profpack {

std::unique_ptr<Profile> readCachegrind(std::span<const uint8_t> data,
                                        const ReadOptions& options = {});
// Writes the profile's cost tables (a Cachegrind or Callgrind profile) as Cachegrind text.
std::string writeCachegrind(const Profile& profile);
void writeCachegrind(const Profile& profile, Sink& out);

}  // namespace profpack
