// Callgrind profiles (callgrind-format.xml): reader and writer. The cost tables they share with
// Cachegrind are coded in costs.h.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "formats/codec.h"

namespace profpack {

// True if `data` is Callgrind text (a Callgrind-only header key or body line).
bool isCallgrind(std::span<const uint8_t> data);
// True if `data` is Cachegrind text (only desc:/cmd:/events: header lines, fl=/fn= bodies).
bool isCachegrind(std::span<const uint8_t> data);

std::unique_ptr<Profile> readCallgrind(std::span<const uint8_t> data,
                                       const ReadOptions& options = {});
// Writes the profile's cost tables (a Callgrind or Cachegrind profile) as Callgrind text.
std::string writeCallgrind(const Profile& profile);
void writeCallgrind(const Profile& profile, Sink& out);

}  // namespace profpack
