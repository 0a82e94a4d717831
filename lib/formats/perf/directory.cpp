// perf record --threads (perf 5.19 on) writes a directory: `data`, a perf.data whose feature
// HEADER_DIR_FORMAT says so (the header, the attrs, the records perf synthesized, the feature
// sections), and `data.N` per recording thread, its records alone. It is read as the one
// perf.data the files make: `data`'s data section followed by every `data.N` (a sample's place
// in time orders it, as perf's reader orders the files' records), the feature sections after
// them.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "error.h"
#include "formats/perf/fields.h"
#include "formats/perf/perf.h"

namespace profpack {

namespace {

constexpr unsigned kFeatureDirFormat = 24;  // HEADER_DIR_FORMAT

// The number N of a `data.N` file name, or -1.
long threadFileNumber(const std::string& name) {
  if (name.size() < 6 || name.compare(0, 5, "data.") != 0 || name.size() > 5 + 9) return -1;
  long n = 0;
  for (size_t i = 5; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

}  // namespace

std::unique_ptr<Profile> readPerfDirectory(const DirectoryFiles& dir, const ReadOptions&) {
  const auto named = std::find(dir.names.begin(), dir.names.end(), "data");
  if (named == dir.names.end()) return nullptr;
  const std::span<const uint8_t> head = dir.open(static_cast<size_t>(named - dir.names.begin()));
  if (head.size() < 104 || std::memcmp(head.data(), "PERFILE2", 8) != 0) return nullptr;
  const perf::Bytes b{head};
  if (b.u64(8) == 16 || !perf::hasFeature(head, kFeatureDirFormat))
    return nullptr;  // a perf.data of its own, not the header of a directory
  // Only now are the thread files opened, in the order of their numbers.
  struct Part {
    long number;
    std::string name;
    std::span<const uint8_t> bytes;
  };
  std::vector<Part> parts;
  for (size_t i = 0; i < dir.names.size(); ++i)
    if (const long n = threadFileNumber(dir.names[i]); n >= 0)
      parts.push_back({n, dir.names[i], dir.open(i)});
  std::sort(parts.begin(), parts.end(),
            [](const Part& x, const Part& y) { return x.number < y.number; });
  const uint64_t dataAt = b.u64(40), dataSize = b.u64(48);
  if (dataAt > head.size() || head.size() - dataAt < dataSize)
    perf::bad(40, "data: data section of " + std::to_string(dataSize) + " bytes at byte " +
                      std::to_string(dataAt) + " runs past the end of the file");
  const uint64_t tail = dataAt + dataSize;
  uint64_t inserted = 0;
  for (const Part& p : parts) inserted += p.bytes.size();
  // The one perf.data: data's bytes to the end of its records, every data.N, then the rest.
  std::vector<uint8_t> image(head.begin(), head.begin() + static_cast<ptrdiff_t>(tail));
  image.reserve(head.size() + inserted);
  for (const Part& p : parts) image.insert(image.end(), p.bytes.begin(), p.bytes.end());
  image.insert(image.end(), head.begin() + static_cast<ptrdiff_t>(tail), head.end());
  auto put64 = [&](uint64_t at, uint64_t v) { std::memcpy(image.data() + at, &v, 8); };
  put64(48, dataSize + inserted);
  // The feature table follows the data: each section's offset moves with it.
  for (uint64_t i = 0, features = perf::featureCount(head); i < features; ++i) {
    const uint64_t at = tail + inserted + 16 * i;
    if (at > image.size() || image.size() - at < 16)
      perf::bad(tail + 16 * i, "data: feature table runs past the end of the file");
    uint64_t off;
    std::memcpy(&off, image.data() + at, 8);
    if (off >= tail) put64(at, off + inserted);
  }
  // perf orders the files' records by time, all of them: rounds (FINISHED_ROUND) of one file
  // would apply its records before older ones of the next, so they are read as records to skip.
  const perf::Bytes records{image};
  for (uint64_t at = dataAt, end = dataAt + dataSize + inserted; at < end;) {
    const uint64_t next = perf::recordEnd(records, at, end);
    if (next == 0) break;  // the reader says what is wrong
    if (records.u32(at) == perf::kFinishedRound) {
      const uint32_t skip = perf::kFinishedInit;
      std::memcpy(image.data() + at, &skip, 4);
    }
    at = next;
  }
  try {
    return readPerfData(image);
  } catch (const Error& e) {
    // An offset in the image, told as the file and its place there.
    const uint64_t at = e.offset();
    if (at == kUnknown) throw;
    if (at < tail)
      throw Error(e.status(), perf::kFmt,
                  "data, byte offset " + std::to_string(at) + ": " + e.message());
    uint64_t from = tail;
    for (const Part& p : parts) {
      if (at < from + p.bytes.size())
        throw Error(e.status(), perf::kFmt,
                    p.name + ", byte offset " + std::to_string(at - from) + ": " + e.message());
      from += p.bytes.size();
    }
    throw Error(e.status(), perf::kFmt,
                "data, byte offset " + std::to_string(at - inserted) + ": " + e.message());
  }
}

}  // namespace profpack
