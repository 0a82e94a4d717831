// perf.data's records as the reader decodes them (lib/formats/perf/records.cpp), before they
// are kept in the IR (reader.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "profile.h"

namespace profpack::perf {

inline constexpr const char* kFmt = "perf";

struct Attr {
  uint32_t type = 0;
  uint64_t config = 0, period = 0, sampleType = 0, readFormat = 0, branchType = 0;
  uint64_t regsUser = 0, regsIntr = 0;
  bool freq = false, sampleIdAll = false;
  std::string name;
};

struct MappingRec {
  int32_t pid = 0;
  uint64_t start = 0, length = 0, pgoff = 0;
  std::string path, buildId;
  bool used = false;
  uint32_t index = 0;  // in the kept list, once used
};

struct ThreadKey {
  int32_t pid, tid;
  std::string comm;
  bool operator<(const ThreadKey& o) const {
    return tid != o.tid ? tid < o.tid : pid != o.pid ? pid < o.pid : comm < o.comm;
  }
};

struct Sample {
  uint64_t time, thread, event, period, stack, cpu;
};

// Everything read from one file.
struct Recording {
  bool pipe = false;
  std::vector<Attr> attrs;
  std::vector<std::pair<std::string, std::string>> features;
  std::vector<ThreadKey> threads;
  std::vector<MappingRec> mappings;  // used ones, in order of first use
  std::vector<uint64_t> frameAddress, frameMapping, frameKernel;
  std::vector<uint64_t> stackLength, stackFrames;
  std::vector<Sample> samples;
  uint64_t lost = 0;
  std::vector<std::string> warnings;
};

// Parses the whole file; throws Error(malformed) with the offset of what is wrong.
Recording parseRecording(std::span<const uint8_t> data);

}  // namespace profpack::perf

namespace profpack {
// The IR of a recording; `names` (per frame, its symbol) where the input names frames.
std::unique_ptr<Profile> buildPerfIR(perf::Recording r, ir::Format format,
                                     const std::vector<std::string>* names);
}  // namespace profpack
