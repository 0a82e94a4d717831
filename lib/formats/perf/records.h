// perf.data's records as the reader decodes them (lib/formats/perf/records.cpp), before they
// are kept in the IR (reader.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/column.h"
#include "profile.h"
#include "util/pairmap.h"

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

// perf_event_header.type of the records read.
enum : uint32_t {
  kMmap = 1,
  kLost = 2,
  kComm = 3,
  kExit = 4,
  kThrottle = 5,
  kUnthrottle = 6,
  kFork = 7,
  kSample = 9,
  kMmap2 = 10,
  kFinishedRound = 68,
  kHeaderAttr = 64,
  kHeaderEventType = 65,
  kHeaderTracingData = 66,
  kHeaderBuildId = 67,
  kIdIndex = 69,
  kAuxtrace = 71,
  kHeaderFeature = 80,
  kCompressed = 81,  // perf record -z: records in a zstd stream (compressed.h)
  kFinishedInit = 82,
  kCompressed2 = 83,  // later perf's, 8-byte aligned (compressed.h)
};

// perf_event_attr sample_type bits (PERF_SAMPLE_*) the readers look at.
enum : uint64_t {
  kSampleIp = 1 << 0,
  kSampleTid = 1 << 1,
  kSampleTime = 1 << 2,
  kSampleAddr = 1 << 3,
  kSampleRead = 1 << 4,
  kSampleCallchain = 1 << 5,
  kSampleId = 1 << 6,
  kSampleCpu = 1 << 7,
  kSamplePeriod = 1 << 8,
  kSampleStreamId = 1 << 9,
  kSampleStackUser = 1 << 13,  // --call-graph dwarf: a copy of the user stack
  kSampleIdentifier = 1 << 16,
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
// IR included), not a decoded row of 48 bytes held until the IR is built. They are encoded a
// block at a time (ColumnWriter::pushMany): six columns a sample at a time took a tenth of the
// instructions of reading a recording.
class SampleColumns {
 public:
  using Enc = ir::Column::Encoding;
  void push(const Sample& s) {
    pending_[waiting_++] = s;
    if (waiting_ == kBlock) drain();
  }
  uint64_t size() const { return stack_.size() + waiting_; }
  // The columns into `out`'s sample columns; the writer may not be used afterwards.
  void build(ir::PerfData::Builder out);

 private:
  void drain();
  static constexpr size_t kBlock = 256;
  ColumnWriter time_{Enc::ZIGZAG_DELTA}, thread_{Enc::VARINT_RUNS}, event_{Enc::VARINT_RUNS},
      period_{Enc::VARINT_RUNS}, stack_{Enc::VARINT}, cpu_{Enc::VARINT_RUNS};
  Sample pending_[kBlock]{};
  size_t waiting_ = 0;
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

// The distinct stacks of a recording (Recording::stackLength, stackFrames), found by their
// frames: open addressing over the stacks' indexes by a hash of the frames, so that a sample
// repeating a stack costs a hash and one compare (no key string built and hashed per sample).
class StackTable {
 public:
  // The index of the stack `chain`, appended to `r` if it is new.
  uint64_t intern(const std::vector<uint64_t>& chain, Recording& r) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ chain.size();
    for (const uint64_t f : chain) h = (h ^ f) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    if (2 * (r.stackLength.size() + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& sl = slots_[i];
      if (sl.index == 0) {
        sl = {h, r.stackLength.size() + 1};
        start_.push_back(r.stackFrames.size());
        r.stackLength.push_back(chain.size());
        r.stackFrames.insert(r.stackFrames.end(), chain.begin(), chain.end());
        return r.stackLength.size() - 1;
      }
      if (sl.hash != h) continue;
      const uint64_t s = sl.index - 1;
      if (r.stackLength[s] == chain.size() &&
          std::equal(chain.begin(), chain.end(), r.stackFrames.begin() + start_[s]))
        return s;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0, index = 0;  // index + 1 of the stack; 0: empty
  };
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : 2 * slots_.size());
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& sl : old)
      if (sl.index)
        for (size_t i = sl.hash & mask;; i = (i + 1) & mask)
          if (slots_[i].index == 0) {
            slots_[i] = sl;
            break;
          }
  }
  std::vector<Slot> slots_;
  std::vector<uint64_t> start_;  // where each stack starts in stackFrames
};

// The threads of a recording (Recording::threads): one per (pid, tid, comm), a thread's comm as
// the latest COMM record (or fork) set it. A sample finds its thread through a cache by (pid,
// tid), emptied by any comm change, instead of building the key, with its string, each time.
class ThreadTable {
 public:
  void setComm(int32_t tid, std::string comm) {
    comm_[tid] = std::move(comm);
    cache_ = PairMap();
    recent_.fill({});
  }
  void inheritComm(int32_t from, int32_t to) {  // a fork: the child starts with its parent's
    if (auto c = comm_.find(from); c != comm_.end()) setComm(to, c->second);
  }
  uint64_t index(int32_t pid, int32_t tid, Recording& r) {
    // A CPU's samples come from a few threads in turn (a program's threads on two CPUs: one
    // sample in eleven from the thread of the one before, with only the latest kept here).
    Recent& e = recent_[(static_cast<uint32_t>(tid) * 0x9e3779b1u) >> (32 - kRecentBits)];
    if (e.known && e.pid == pid && e.tid == tid) return e.thread;
    e = {pid, tid, find(pid, tid, r), true};
    return e.thread;
  }

 private:
  uint64_t find(int32_t pid, int32_t tid, Recording& r) {
    bool inserted;
    uint64_t& cached =
        cache_.findOrInsert(static_cast<uint32_t>(pid), static_cast<uint32_t>(tid), 0, inserted);
    if (!inserted) return cached;
    auto c = comm_.find(tid);
    // Without a COMM record: ":TID", as perf names it, and the idle task (0/0) "swapper".
    ThreadKey k{pid, tid,
                c != comm_.end()       ? c->second
                : pid == 0 && tid == 0 ? std::string("swapper")
                                       : ":" + std::to_string(tid)};
    auto [th, fresh] = index_.try_emplace(k, r.threads.size());
    if (fresh) r.threads.push_back(k);
    return cached = th->second;
  }
  std::unordered_map<int32_t, std::string> comm_;  // tid -> comm
  std::map<ThreadKey, uint64_t> index_;
  PairMap cache_;  // (pid, tid) -> thread, while no comm changed
  // The latest lookups, a slot per hash of the tid, while no comm changed.
  static constexpr unsigned kRecentBits = 6;
  struct Recent {
    int32_t pid = 0, tid = 0;
    uint64_t thread = 0;
    bool known = false;
  };
  std::array<Recent, size_t{1} << kRecentBits> recent_{};
};

// Parses the whole file; throws Error(malformed) with the offset of what is wrong. Records are
// applied a round at a time (FINISHED_ROUND), so the reader holds two rounds of them, not the
// file's.
Recording parseRecording(std::span<const uint8_t> data);
// The header's build-id table (path -> build id) alone; empty for a recording to a pipe.
// Throws as parseRecording() does on a malformed header.
std::unordered_map<std::string, std::string> buildIdTable(std::span<const uint8_t> data);

}  // namespace profpack::perf

namespace profpack {
// The IR of a recording; `names` (per frame, its symbol) where the input names frames.
std::unique_ptr<Profile> buildPerfIR(perf::Recording r, ir::Format format,
                                     const std::vector<std::string>* names);
}  // namespace profpack
