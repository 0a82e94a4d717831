// Reading perf.data's fields (records.cpp, compressed.cpp): bounds-checked little-endian reads
// that throw Status::malformed with the byte offset, and the perf_event_attr.
#pragma once

#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>

#include "error.h"
#include "formats/perf/records.h"

namespace profpack::perf {

[[noreturn]] inline void bad(uint64_t offset, const std::string& what) {
  throw Error(Status::malformed, kFmt, what, offset);
}

// The failures of Bytes' checks, out of line: each check is then a compare and a branch that
// inlines where it is used (they ran as calls, one per field of every sample: a tenth of the
// instructions on a 134 MB recording).
[[noreturn, gnu::noinline, gnu::cold]] inline void truncated(uint64_t at, unsigned n) {
  bad(at, "truncated: " + std::to_string(n) + " bytes needed");
}
[[noreturn, gnu::noinline, gnu::cold]] inline void pastRecord(uint64_t at, const char* what) {
  bad(at, std::string(what) + " runs past the end of its record");
}

struct Bytes {
  std::span<const uint8_t> d;
  template <typename T>
  T get(uint64_t at) const {
    if (at > d.size() || d.size() - at < sizeof(T)) truncated(at, sizeof(T));
    T v;
    std::memcpy(&v, d.data() + at, sizeof(T));
    return v;
  }
  uint64_t u64(uint64_t at) const { return get<uint64_t>(at); }
  uint32_t u32(uint64_t at) const { return get<uint32_t>(at); }
  uint16_t u16(uint64_t at) const { return get<uint16_t>(at); }
  // A NUL-terminated string within [at, end).
  std::string str(uint64_t at, uint64_t end) const {
    if (end > d.size() || at > end) bad(at, "string beyond its record");
    const char* p = reinterpret_cast<const char*>(d.data() + at);
    return std::string(p, strnlen(p, end - at));
  }
  // Checks [at, at + n) lies within `end`.
  void need(uint64_t at, uint64_t n, uint64_t end, const char* what) const {
    if (at > end || end - at < n) pastRecord(at, what);
  }
};

inline Attr readAttr(const Bytes& b, uint64_t at, uint64_t size) {
  Attr a;
  if (size < 64) bad(at, "perf_event_attr of " + std::to_string(size) + " bytes (at least 64)");
  b.need(at, size, b.d.size(), "perf_event_attr");
  a.type = b.u32(at);
  a.config = b.u64(at + 8);
  a.period = b.u64(at + 16);
  a.sampleType = b.u64(at + 24);
  a.readFormat = b.u64(at + 32);
  const uint64_t flags = b.u64(at + 40);
  a.freq = flags & (1 << 10);
  a.sampleIdAll = flags & (uint64_t{1} << 18);
  if (size >= 80) a.branchType = b.u64(at + 72);
  if (size >= 88) a.regsUser = b.u64(at + 80);
  if (size >= 104) a.regsIntr = b.u64(at + 96);
  return a;
}

// Bytes of the sample_id block at the end of non-sample records.
inline uint64_t idBlockBytes(uint64_t t) {
  uint64_t n = 0;
  for (uint64_t bit :
       {kSampleTid, kSampleTime, kSampleId, kSampleStreamId, kSampleCpu, kSampleIdentifier})
    n += (t & bit) ? 8 : 0;
  return n;
}

inline std::string eventName(const Attr& a) {
  static const char* const kSoftware[] = {
      "cpu-clock",    "task-clock",   "page-faults",      "context-switches", "cpu-migrations",
      "minor-faults", "major-faults", "alignment-faults", "emulation-faults"};
  static const char* const kHardware[] = {"cycles",       "instructions", "cache-references",
                                          "cache-misses", "branches",     "branch-misses",
                                          "bus-cycles"};
  if (a.type == 1 && a.config < std::size(kSoftware)) return kSoftware[a.config];
  if (a.type == 0 && a.config < std::size(kHardware)) return kHardware[a.config];
  return "event-" + std::to_string(a.type) + ":" + std::to_string(a.config);
}

// Where the record at `at` ends, with the payload that follows the record types whose payload is
// outside their size: the step from one record to the next, for every walk over records; 0
// for a record that is cut short or runs past `end`.
// A file-mode header's feature bitmap (its bytes 72 to 104, which `header` holds): whether
// feature `id` is set, and how many are (the feature table's entries, in id order).
inline bool hasFeature(std::span<const uint8_t> header, unsigned id) {
  return (header[72 + id / 8] >> (id % 8)) & 1u;
}
inline uint64_t featureCount(std::span<const uint8_t> header) {
  uint64_t n = 0;
  for (unsigned id = 0; id < 256; ++id) n += hasFeature(header, id);
  return n;
}

inline uint64_t recordEnd(const Bytes& b, uint64_t at, uint64_t end) {
  if (end - at < 8) return 0;
  const uint32_t type = b.u32(at);
  const uint16_t size = b.u16(at + 6);
  if (size < 8 || end - at < size) return 0;
  uint64_t next = at + size;
  if (type == kHeaderTracingData && size >= 12) next += b.u32(at + 8);
  if (type == kAuxtrace && size >= 16) {
    const uint64_t n = b.u64(at + 8);
    if (n > end - next) return 0;
    next += n;
  }
  return next > end ? 0 : next;
}

}  // namespace profpack::perf
