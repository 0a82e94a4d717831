// perf.data's records as the reader decodes them (lib/formats/perf/records.cpp), before they
// are kept in the IR (reader.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ir/column.h"
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

// The samples, each as its row of the IR's sample columns, encoded as they arrive: a sample
// costs its few encoded bytes (a 30 MB recording of 417,000 samples: 7 bytes each, its whole
// IR included), not a decoded row of 48 bytes held until the IR is built.
struct SampleColumns {
  using Enc = ir::Column::Encoding;
  ColumnWriter time{Enc::ZIGZAG_DELTA}, thread{Enc::VARINT_RUNS}, event{Enc::VARINT_RUNS},
      period{Enc::VARINT_RUNS}, stack{Enc::VARINT}, cpu{Enc::VARINT_RUNS};
  void push(const Sample& s) {
    time.push(s.time);
    thread.push(s.thread);
    event.push(s.event);
    period.push(s.period);
    stack.push(s.stack);
    cpu.push(s.cpu);
  }
  uint64_t size() const { return stack.size(); }
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
  SampleColumns samples;
  uint64_t lost = 0;
  std::vector<std::string> warnings;
};

// Parses the whole file; throws Error(malformed) with the offset of what is wrong. Records are
// applied a round at a time (FINISHED_ROUND), so the reader holds two rounds of them, not the
// file's.
Recording parseRecording(std::span<const uint8_t> data);

}  // namespace profpack::perf

namespace profpack {
// The IR of a recording; `names` (per frame, its symbol) where the input names frames.
std::unique_ptr<Profile> buildPerfIR(perf::Recording r, ir::Format format,
                                     const std::vector<std::string>* names);
}  // namespace profpack
