// Format detection and the table of readers and writers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "profile.h"

namespace profpack {

// Mirrors profpack_format in include/profpack/profpack.h.
enum class FormatId : int {
  unknown = 0,
  ppk = 1,
  callgrind = 2,
  cachegrind = 3,
  gperftools = 4,
  xray = 5,
  dcpi = 6,
};

const char* formatName(FormatId f);          // "ppk", "callgrind", ... ("unknown")
FormatId formatFromName(std::string_view name);  // unknown if not a name

struct ReadOptions {
  uint64_t maxPpkMessage;  // .ppk: largest decompressed message accepted
  bool strict;             // make recoverable defects (e.g. a truncated trace) errors
};

struct WriteOptions {
  int ppkLevel = 6;        // zstd level for .ppk
};

// Detects the format from the first bytes (never from a file name).
FormatId detectFormat(std::span<const uint8_t> data);

std::unique_ptr<Profile> readProfile(std::span<const uint8_t> data, const ReadOptions& options);

// Serialises `profile` in `format`. Throws Status::unsupported where the IR lacks what the
// format needs (e.g. a gperftools profile written as Cachegrind).
std::string writeProfile(const Profile& profile, FormatId format, const WriteOptions& options);

// Per-format entry points (lib/<format>/).
std::unique_ptr<Profile> readCachegrind(std::span<const uint8_t> data);
std::string writeCachegrind(const Profile& profile);
std::unique_ptr<Profile> readGperftools(std::span<const uint8_t> data);
std::string writeGperftools(const Profile& profile);  // as read; see gperftools/gperftools.h

}  // namespace profpack
