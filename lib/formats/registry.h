// Format detection and the table of readers and writers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "profile.h"
#include "util/io.h"

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

const char* formatName(FormatId f);              // "ppk", "callgrind", ... ("unknown")
FormatId formatFromName(std::string_view name);  // unknown if not a name

struct ReadOptions {
  uint64_t maxPpkMessage = uint64_t{4} << 30;  // .ppk: largest decompressed message accepted
  bool strict = false;                  // make recoverable defects (e.g. a truncated trace) errors
  FormatId format = FormatId::unknown;  // read as this format instead of detecting it
};

struct WriteOptions {
  int ppkLevel = 3;     // zstd level for .ppk
  int xrayMode = -1;    // XRay: -1 the input's mode, 0 basic, 1 FDR
  int xrayVersion = 0;  // XRay: 0 the input's version (FDR 1-5, basic 1-3)
  std::string dcpiImage;
  unsigned gperfSlotBytes = 0;  // gperftools: 0 as read, 4 or 8
  int gperfByteOrder = 0;  // gperftools: 0 as read, 1 little-endian, 2 big-endian  // DCPI: the
                           // image to write when there are several (path or index)
};

// Detects the format from the first bytes (never from a file name).
FormatId detectFormat(std::span<const uint8_t> data);

std::unique_ptr<Profile> readProfile(std::span<const uint8_t> data, const ReadOptions& options);

// Serialises `profile` in `format`. Throws Status::unsupported where the IR lacks what the
// format needs (e.g. a gperftools profile written as Cachegrind).
std::string writeProfile(const Profile& profile, FormatId format, const WriteOptions& options);
// The same into `out`, a piece at a time where the format's writer streams (the text formats:
// Callgrind and Cachegrind flush about every 1 MiB); the others pass their output in one piece.
void writeProfile(const Profile& profile, FormatId format, const WriteOptions& options, Sink& out);

// Per-format entry points (lib/<format>/).
std::unique_ptr<Profile> readCachegrind(std::span<const uint8_t> data);
std::string writeCachegrind(const Profile& profile);
void writeCachegrind(const Profile& profile, Sink& out);
// XRay (lib/xray/): `strict` makes a truncated trace an error instead of a warning.
std::unique_ptr<Profile> readXray(std::span<const uint8_t> data, bool strict);
std::unique_ptr<Profile> readDcpi(std::span<const uint8_t> data);  // lib/dcpi/dcpi.h
std::string writeDcpi(const Profile& profile, const std::string& image);
std::unique_ptr<Profile> readCallgrind(std::span<const uint8_t> data);
std::string writeCallgrind(const Profile& profile);
void writeCallgrind(const Profile& profile, Sink& out);
std::unique_ptr<Profile> readGperftools(std::span<const uint8_t> data);
std::string writeGperftools(const Profile& profile);  // as read; see gperftools/gperftools.h

}  // namespace profpack
