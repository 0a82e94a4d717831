// What every format offers the registry (lib/formats/registry.h): the one list of format ids,
// read and write options, and the codec entry points. Formats include this header; nothing
// above the registry includes a format's own header.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profile.h"
#include "util/io.h"

namespace profpack {

// The one list of formats. The values are profpack_format's (include/profpack/profpack.h);
// the registry static_asserts that, and maps each to the IR's ir::Format.
enum class FormatId : int {
  unknown = 0,
  ppk = 1,
  callgrind = 2,
  cachegrind = 3,
  gperftools = 4,
  xray = 5,
  dcpi = 6,
  folded = 7,      // written only: collapsed stacks
  traceEvent = 8,  // written only: Chrome Trace Event JSON
  pprof = 9,       // written only: gzip-compressed profile.proto
};

struct ReadOptions {
  uint64_t maxPpkMessage = uint64_t{4} << 30;  // .ppk: largest decompressed message accepted
  // Make recoverable defects errors: a truncated XRay trace, a text profile cut before its
  // closing summary/totals line or in the middle of a line.
  bool strict = false;
  // The profile will be queried or converted to another format: a reader may leave what only
  // .ppk output and its own writer need to be built on first use (Profile::Deferred).
  bool deferIR = false;
  FormatId format = FormatId::unknown;  // read as this format instead of detecting it
};

struct WriteOptions {
  int ppkLevel = 3;             // zstd level for .ppk
  int xrayMode = -1;            // XRay: -1 the input's mode, 0 basic, 1 FDR
  int xrayVersion = 0;          // XRay: 0 the input's version (FDR 1-5, basic 1-3)
  std::string dcpiImage;        // DCPI: the image to write when there are several (path or index)
  unsigned gperfSlotBytes = 0;  // gperftools: 0 as read, 4 or 8
  int gperfByteOrder = 0;       // gperftools: 0 as read, 1 little-endian, 2 big-endian
};

// Header lines as (key, value) pairs, in order.
using HeaderPairs = std::vector<std::pair<std::string, std::string>>;

// A merge a format does itself (gperftools: samples per identical stack), one profile at a
// time: memory grows with the merged result, not with the inputs.
class FormatMerge {
 public:
  virtual ~FormatMerge() = default;
  virtual void add(const Profile& profile) = 0;
  virtual std::unique_ptr<Profile> finish() = 0;
};

}  // namespace profpack
