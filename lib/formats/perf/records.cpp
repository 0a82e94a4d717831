// perf.data's header, attrs, feature sections and records (perf.data-file-format.txt). Records
// are applied in time order (as perf script does) to the state of processes and threads: comm
// names, mappings per process, the mapping of each sampled address. As perf's ordered events,
// a round at a time (FINISHED_ROUND ends each pass of perf record over its buffers; a record
// may be older than the round before's end, not older than the one before that): at the end of
// round N, the records up to round N-1's latest time. Two rounds are held, not the file.

#include "formats/perf/records.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <tuple>
#include <unordered_map>

#include "error.h"
#include "formats/perf/compressed.h"
#include "formats/perf/fields.h"
#include "util/pages.h"
#include "util/runs.h"

namespace profpack::perf {

namespace {

constexpr uint64_t kContextMax = uint64_t(-4095);
constexpr uint64_t kContextHv = uint64_t(-32), kContextKernel = uint64_t(-128),
                   kContextGuestKernel = uint64_t(-2176);

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> d) : b_{d}, releaser_(d.data(), d.size()) {}
  Recording run();
  // The header's build-id table (path -> build id), the records unread; empty in pipe mode.
  std::unordered_map<std::string, std::string> buildIds() {
    header(false);
    return std::move(buildIds_);
  }

 private:
  struct Entry {
    uint64_t time, offset;
  };
  // `records`: false to stop before them (file mode; in pipe mode nothing is read).
  void header(bool records = true);
  // Checks that the section that the header field at `field` describes lies in the file.
  void section(uint64_t field, uint64_t at, uint64_t size, const char* what) const {
    if (at > b_.d.size() || b_.d.size() - at < size)
      bad(field, std::string(what) + " section of " + std::to_string(size) + " bytes at byte " +
                     std::to_string(at) + " runs past the end of the file (" +
                     std::to_string(b_.d.size()) + " bytes)");
  }
  void features(uint64_t tableAt);
  // Whether a feature table at `tableAt` lists sections that lie after it in the file.
  bool featureTableFits(uint64_t tableAt) const;
  void feature(unsigned id, uint64_t at, uint64_t size);
  void addAttr(Attr a, uint64_t idsAt, uint64_t idsCount);
  void scan(uint64_t begin, uint64_t end);
  // `scanned`: the bytes below it that are held are the records not yet applied.
  void flush(bool all, uint64_t scanned);
  void apply(uint64_t at);
  void sample(uint64_t at, uint64_t end, uint16_t misc);
  const Attr& attrOfSample(uint64_t at, uint64_t end) const;
  uint64_t timeOf(uint32_t type, uint64_t at, uint64_t end) const;
  int64_t findMapping(int32_t pid, uint64_t ip);
  int64_t kernelText_ = -1;  // the kernel's text mapping in all_ (addMapping), -1: none
  void addMapping(MappingRec m);
  uint64_t frameOf(uint64_t ip, bool kernel, int32_t pid);
  uint64_t frameOfSearched(uint64_t ip, bool kernel, int32_t pid);
  void warnOnce(uint32_t type, uint64_t at);
  void scanRecords(uint64_t begin, uint64_t end, bool compressed);

  Bytes b_;
  std::vector<uint8_t> expanded_;  // perf record -z: the records decompressed (compressed.h)
  bool unfinished_ = false;  // a data size of 0 (perf record stopped before its end), or pipe mode
  PageReleaser releaser_;  // the input's pages below every record still held
  Recording r_;
  std::unordered_map<uint64_t, size_t> attrOfId_;
  std::vector<Entry> entries_;  // records met and not yet applied
  std::vector<Entry> merged_;   // sortRuns' scratch
  std::vector<size_t> runs_;    // and its runs
  uint64_t flushUpTo_ = 0;      // at the next round's end: apply the records up to this time
  uint64_t latest_ = 0;         // the latest time met
  std::set<uint32_t> warned_;
  std::vector<MappingRec> all_;
  std::map<int32_t, std::map<uint64_t, size_t>> maps_;  // pid -> start -> index into all_
  // The kept mappings (r_.mappings) by what they say: pid, start, length, offset, path, build id.
  std::map<std::tuple<int32_t, uint64_t, uint64_t, uint64_t, std::string, std::string>, uint32_t>
      keptOf_;
  ThreadTable threads_;
  std::unordered_map<std::string, std::string> buildIds_;  // path -> build id
  PairMap frames_;  // (address, kept mapping * 2 + kernel) -> frame
  // Frames of recent (address, address space) pairs (call chains repeat: a hit skips two
  // lookups), valid while no mapping changed (mapsChanged_ counts MMAP, exec and fork).
  struct RecentFrame {
    uint64_t ip = 0, changes = 0, frame = 0;
    int64_t space = 0;
  };
  std::vector<RecentFrame> recent_ = std::vector<RecentFrame>(4096);
  uint64_t mapsChanged_ = 1;
  StackTable stacks_;
  std::vector<uint64_t> chain_;
};

void Reader::header(bool records) {
  if (b_.d.size() < 16 || std::memcmp(b_.d.data(), "PERFILE2", 8) != 0)
    bad(0, "not perf.data: no PERFILE2 magic (big-endian files are not read)");
  const uint64_t size = b_.u64(8);
  if (size == 16) {  // pipe mode: records follow, attrs among them
    r_.pipe = true;
    // No size says where the stream ends: cut (perf killed, a file cut short), its last
    // record is unfinished, and the records before it are read, as in an unfinished file.
    unfinished_ = true;
    if (records) scanRecords(16, b_.d.size(), holdsCompressed(b_.d, 16, b_.d.size()));
    return;
  }
  if (size < 104) bad(8, "header of " + std::to_string(size) + " bytes (104 expected)");
  if (b_.d.size() < 104)  // its feature bitmap too (hasFeature)
    bad(0, "header cut short: " + std::to_string(b_.d.size()) + " of its 104 bytes");
  const uint64_t attrSize = b_.u64(16), attrsAt = b_.u64(24), attrsSize = b_.u64(32);
  const uint64_t dataAt = b_.u64(40), dataSize = b_.u64(48);
  if (attrSize < 64 + 16 || attrSize > 4096) bad(16, "attr size " + std::to_string(attrSize));
  section(24, attrsAt, attrsSize, "attrs");
  // perf record writes the data size, and the feature sections after the data, when it ends:
  // stopped before (killed, out of memory, the machine down), it leaves a size of 0 and its
  // records up to the end of the file. They are read, as far as they are whole, and it is said.
  // (A finished recording of no records has a size of 0 too: its feature table follows.)
  unfinished_ = dataSize == 0 && b_.d.size() >= dataAt && dataAt >= attrsAt + attrsSize &&
                !featureTableFits(dataAt);
  const uint64_t dataEnd = unfinished_ ? b_.d.size() : dataAt + dataSize;
  if (!unfinished_) section(40, dataAt, dataSize, "data");
  for (uint64_t at = attrsAt; attrsAt + attrsSize - at >= attrSize; at += attrSize) {
    Attr a = readAttr(b_, at, attrSize - 16);
    const uint64_t idsAt = b_.u64(at + attrSize - 16), idsSize = b_.u64(at + attrSize - 8);
    b_.need(idsAt, idsSize, b_.d.size(), "attr ids");
    addAttr(std::move(a), idsAt, idsSize / 8);
  }
  if (r_.attrs.empty()) bad(24, "no perf_event_attr in the attrs section");
  if (unfinished_)
    r_.warnings.push_back(
        "perf: the header's data size is 0, as perf record leaves it when it is stopped before "
        "it ends: the records are read up to the end of the file (" +
        std::to_string(b_.d.size() - dataAt) +
        " bytes), without the feature sections perf writes at the end (build ids, event names, "
        "host)");
  else
    features(dataEnd);
  if (records) scanRecords(dataAt, dataEnd, hasFeature(b_.d, kFeatureCompressed));
}

// The records in [begin, end), or with `compressed` (perf record -z) the records they
// decompress to; an error in those names its offset in their stream.
void Reader::scanRecords(uint64_t begin, uint64_t end, bool compressed) {
  if (!compressed) {
    scan(begin, end);
    return;
  }
  expanded_ = expandCompressed(b_.d, begin, end, unfinished_);
  b_ = Bytes{expanded_};
  releaser_ = PageReleaser(expanded_.data(), 0);  // memory of its own: nothing to give back
  scan(0, expanded_.size());                      // its errors' offsets are the stream's (run())
}

void Reader::addAttr(Attr a, uint64_t idsAt, uint64_t idsCount) {
  if (r_.attrs.size() >= 4096) bad(idsAt, "more than 4096 events");
  for (uint64_t i = 0; i < idsCount; ++i) attrOfId_[b_.u64(idsAt + 8 * i)] = r_.attrs.size();
  a.name = eventName(a);
  r_.attrs.push_back(std::move(a));
}

bool Reader::featureTableFits(uint64_t tableAt) const {
  uint64_t at = tableAt;
  const uint64_t count = featureCount(b_.d);
  if (count == 0 || tableAt > b_.d.size() || (b_.d.size() - tableAt) / 16 < count) return false;
  for (uint64_t i = 0; i < count; ++i, at += 16) {
    const uint64_t off = b_.u64(at), size = b_.u64(at + 8);
    if (off < tableAt + 16 * count || off > b_.d.size() || b_.d.size() - off < size) return false;
  }
  return true;
}

void Reader::features(uint64_t tableAt) {
  uint64_t at = tableAt;
  for (unsigned id = 0; id < 256; ++id) {
    if (!hasFeature(b_.d, id)) continue;
    const uint64_t off = b_.u64(at), size = b_.u64(at + 8);
    section(at, off, size, "feature");
    feature(id, off, size);
    at += 16;
  }
}

void Reader::feature(unsigned id, uint64_t at, uint64_t size) {
  const uint64_t end = at + size;
  auto str = [&](uint64_t& p) {
    const uint32_t len = b_.u32(p);
    b_.need(p + 4, len, end, "feature string");
    std::string s = b_.str(p + 4, p + 4 + len);
    p += 4 + len;
    return s;
  };
  static const char* const kNames[] = {nullptr,     nullptr,   nullptr, "hostname",
                                       "osrelease", "version", "arch"};
  if (id >= 3 && id <= 6) {
    uint64_t p = at;
    r_.features.emplace_back(kNames[id], str(p));
  } else if (id == 7 && size >= 8) {
    r_.features.emplace_back(
        "nrcpus", std::to_string(b_.u32(at + 4)) + " online of " + std::to_string(b_.u32(at)));
  } else if (id == 11) {  // cmdline
    uint64_t p = at;
    const uint32_t n = b_.u32(p);
    p += 4;
    std::string line;
    for (uint32_t i = 0; i < n && p < end; ++i) line += (i ? " " : "") + str(p);
    r_.features.emplace_back("cmdline", line);
  } else if (id == 12) {  // event desc: names of the attrs
    uint64_t p = at;
    const uint32_t n = b_.u32(p), attrSize = b_.u32(p + 4);
    p += 8;
    for (uint32_t i = 0; i < n && p < end; ++i) {
      b_.need(p, uint64_t{attrSize} + 4, end, "event desc");
      p += attrSize;
      const uint32_t ids = b_.u32(p);
      p += 4;
      std::string name = str(p);
      b_.need(p, uint64_t{ids} * 8, end, "event desc ids");
      p += uint64_t{ids} * 8;
      if (i < r_.attrs.size()) r_.attrs[i].name = name;
    }
  } else if (id == 2) {  // build ids: perf_event_header, pid, build_id[24], filename
    for (uint64_t p = at; end - p >= 8 + 4 + 24;) {
      const uint16_t misc = b_.u16(p + 4), len = b_.u16(p + 6);
      if (len < 36 || end - p < len) bad(p, "build id record of " + std::to_string(len) + " bytes");
      size_t idLen = (misc & (1u << 15)) ? std::min<size_t>(b_.d[p + 12 + 20], 20) : 20;
      std::string bid(reinterpret_cast<const char*>(b_.d.data() + p + 12), idLen);
      if (!(misc & (1u << 15)))
        while (!bid.empty() && bid.back() == 0) bid.pop_back();
      buildIds_[b_.str(p + 36, p + len)] = bid;
      p += len;
    }
  }
}

// Sizes checked, times noted, rounds applied; pipe mode's attrs and features taken at once.
void Reader::scan(uint64_t begin, uint64_t end) {
  uint64_t last = 0;
  for (uint64_t at = begin; at < end;) {
    // Where the record ends, with the payload some kinds carry after it (0: cut short).
    const uint64_t next = recordEnd(b_, at, end);
    // Unfinished: a record the end of the file cuts (its header, its size, or the payload
    // after it) is where perf stopped writing; a size below its header is damage, as anywhere.
    if (unfinished_ && next == 0 && (end - at < 8 || b_.u16(at + 6) >= 8)) {
      r_.warnings.push_back("perf: the records end at byte " + std::to_string(at) +
                            " in a record perf record did not finish writing (" +
                            std::to_string(end - at) + " bytes): the records before it are read");
      break;
    }
    if (end - at < 8) bad(at, "record header cut short");
    const uint32_t type = b_.u32(at);
    const uint16_t size = b_.u16(at + 6);
    if (size < 8 || end - at < size)
      bad(at, "record of type " + std::to_string(type) + " with size " + std::to_string(size) +
                  (size < 8 ? " (less than its header)" : " past the end of the data"));
    if (next == 0) bad(at, "record payload past the end of the data");
    if (type == kHeaderAttr) {
      const uint64_t attrSize = b_.u32(at + 8 + 4);
      if (attrSize > uint64_t(size) - 8) bad(at, "attr larger than its record");
      addAttr(readAttr(b_, at + 8, attrSize), at + 8 + attrSize, (size - 8 - attrSize) / 8);
    } else if (type == kHeaderFeature && size >= 16) {
      feature(static_cast<unsigned>(b_.u64(at + 8)), at + 16, size - 16);
    } else if (type == kFinishedRound) {
      flush(false, at);
    } else if (type == kCompressed || type == kCompressed2) {
      bad(at, !expanded_.empty() ? "PERF_RECORD_COMPRESSED inside the decompressed records"
                                 : "PERF_RECORD_COMPRESSED in a file whose header does not say "
                                   "its records are compressed (HEADER_COMPRESSED)");
    } else if (type < 64) {
      const uint64_t t = timeOf(type, at, at + size);
      last = t == ~uint64_t{0} ? last : t;
      latest_ = std::max(latest_, last);
      entries_.push_back({last, at});
    }
    at = next;
  }
}

uint64_t Reader::timeOf(uint32_t type, uint64_t at, uint64_t end) const {
  if (r_.attrs.empty()) bad(at, "a record before any perf_event_attr");
  const uint64_t t = r_.attrs[0].sampleType;
  if (!(t & kSampleTime)) return ~uint64_t{0};
  if (type == kSample) {
    const Attr& a = attrOfSample(at, end);
    uint64_t p = at + 8;
    for (uint64_t bit : {kSampleIdentifier, kSampleIp, kSampleTid})
      if (a.sampleType & bit) p += 8;
    return b_.u64(p);
  }
  if (!r_.attrs[0].sampleIdAll) return ~uint64_t{0};
  const uint64_t n = idBlockBytes(t);
  if (end - at < 8 + n) bad(at, "record too short for its sample id");
  return b_.u64(end - n + ((t & kSampleTid) ? 8 : 0));
}

const Attr& Reader::attrOfSample(uint64_t at, uint64_t end) const {
  if (r_.attrs.size() == 1) return r_.attrs[0];
  const uint64_t t = r_.attrs[0].sampleType;
  uint64_t p = at + 8;
  if (!(t & kSampleIdentifier)) {
    if (!(t & kSampleId)) return r_.attrs[0];
    for (uint64_t bit : {kSampleIp, kSampleTid, kSampleTime, kSampleAddr})
      if (t & bit) p += 8;
  }
  if (p + 8 > end) bad(at, "sample too short for its id");
  auto it = attrOfId_.find(b_.u64(p));
  if (it == attrOfId_.end()) bad(at, "sample of an id no attr has");
  return r_.attrs[it->second];
}

void Reader::warnOnce(uint32_t type, uint64_t at) {
  // The kernel's record types (PERF_RECORD_*), by number, as perf report --stats names them.
  static const char* const kNames[] = {nullptr,        "MMAP",
                                       "LOST",         "COMM",
                                       "EXIT",         "THROTTLE",
                                       "UNTHROTTLE",   "FORK",
                                       "READ",         "SAMPLE",
                                       "MMAP2",        "AUX",
                                       "ITRACE_START", "LOST_SAMPLES",
                                       "SWITCH",       "SWITCH_CPU_WIDE",
                                       "NAMESPACES",   "KSYMBOL",
                                       "BPF_EVENT",    "CGROUP",
                                       "TEXT_POKE",    "AUX_OUTPUT_HW_ID"};
  const std::string name =
      type < std::size(kNames) && kNames[type] ? std::string(" (") + kNames[type] + ")" : "";
  if (warned_.insert(type).second)
    r_.warnings.push_back(
        "perf: skipped records of type " + std::to_string(type) + name + " (first at byte " +
        std::to_string(at) +
        (expanded_.empty() ? ")" : " of the records decompressed from PERF_RECORD_COMPRESSED)"));
}

void Reader::addMapping(MappingRec m) {
  ++mapsChanged_;
  auto& space = maps_[m.pid];
  const uint64_t end = m.start + m.length;
  // A new mapping replaces the ones it overlaps.
  auto it = space.lower_bound(m.start);
  if (it != space.begin()) --it;
  while (it != space.end() && all_[it->second].start < end) {
    const MappingRec& o = all_[it->second];
    if (o.start + o.length > m.start)
      it = space.erase(it);
    else
      ++it;
  }
  space[m.start] = all_.size();
  // The kernel's own text mapping, for its frames past it (frameOfSearched): the latest.
  if (m.pid == -1 && m.path.rfind("[kernel.kallsyms]", 0) == 0)
    kernelText_ = static_cast<int64_t>(all_.size());
  all_.push_back(std::move(m));
}

int64_t Reader::findMapping(int32_t pid, uint64_t ip) {
  auto s = maps_.find(pid);
  if (s == maps_.end()) return -1;
  auto it = s->second.upper_bound(ip);
  if (it == s->second.begin()) return -1;
  --it;
  const MappingRec& m = all_[it->second];
  return ip - m.start < m.length ? static_cast<int64_t>(it->second) : -1;
}

uint64_t Reader::frameOf(uint64_t ip, bool kernel, int32_t pid) {
  // The address space: the kernel's (-1) or the process's (pid -1, a sample without one, too);
  // the slot: the hash's top 12 bits (recent_ has 4,096).
  const int64_t space = kernel ? -1 : int64_t{pid} + 2;
  RecentFrame& r = recent_[((ip * 0x9e3779b97f4a7c15ull) ^ static_cast<uint64_t>(space)) >> 52];
  if (r.ip == ip && r.space == space && r.changes == mapsChanged_) return r.frame;
  r = {ip, mapsChanged_, frameOfSearched(ip, kernel, pid), space};
  return r.frame;
}

uint64_t Reader::frameOfSearched(uint64_t ip, bool kernel, int32_t pid) {
  int64_t m = findMapping(kernel ? -1 : pid, ip);
  // A kernel frame past the kernel's text mapping (which ends at _etext: init text, as at
  // boot in an idle task's stack, is above it) is the kernel's, named from its symbol table
  // as perf names it.
  if (m < 0 && kernel && (ip >> 63) != 0) m = kernelText_;  // the upper half: the kernel's
  uint64_t kept = 0;
  if (m >= 0) {
    MappingRec& rec = all_[static_cast<size_t>(m)];
    if (!rec.used) {
      rec.used = true;
      if (rec.buildId.empty())
        if (auto b = buildIds_.find(rec.path.rfind("[kernel.kallsyms]", 0) == 0
                                        ? std::string("[kernel.kallsyms]")  // its _text mapping
                                        : rec.path);
            b != buildIds_.end())
          rec.buildId = b->second;
      // A mapping made again as it was (a process mapping the same file at the same place,
      // or each copy of a repeated run) is one kept mapping: its frames stay the same frames.
      auto [k, fresh] = keptOf_.try_emplace(
          std::tie(rec.pid, rec.start, rec.length, rec.pgoff, rec.path, rec.buildId),
          static_cast<uint32_t>(r_.mappings.size()));
      rec.index = k->second;
      if (fresh) r_.mappings.push_back(rec);
    }
    kept = rec.index + 1;
  }
  bool fresh;
  const uint64_t frame = frames_.findOrInsert(ip, kept * 2 + kernel, r_.frameAddress.size(), fresh);
  if (fresh) {
    r_.frameAddress.push_back(ip);
    r_.frameMapping.push_back(kept);
    r_.frameKernel.push_back(kernel);
  }
  return frame;
}

void Reader::sample(uint64_t at, uint64_t end, uint16_t misc) {
  const Attr& a = attrOfSample(at, end);
  const uint64_t t = a.sampleType;
  // A sample without its period (perf record -c N) has the event's: attr.sample_period, as
  // perf takes it.
  uint64_t p = at + 8, ip = 0, time = 0, period = a.period, cpu = 0;
  int32_t pid = -1, tid = -1;
  auto take = [&](uint64_t bit) {
    if (!(t & bit)) return false;
    b_.need(p, 8, end, "sample field");
    return true;
  };
  if (take(kSampleIdentifier)) p += 8;
  if (take(kSampleIp)) ip = b_.u64(p), p += 8;
  if (take(kSampleTid))
    pid = static_cast<int32_t>(b_.u32(p)), tid = static_cast<int32_t>(b_.u32(p + 4)), p += 8;
  if (take(kSampleTime)) time = b_.u64(p), p += 8;
  if (take(kSampleAddr)) p += 8;
  if (take(kSampleId)) p += 8;
  if (take(kSampleStreamId)) p += 8;
  if (take(kSampleCpu)) cpu = b_.u32(p), p += 8;
  if (take(kSamplePeriod)) period = b_.u64(p), p += 8;
  if (take(kSampleRead)) {
    const uint64_t f = a.readFormat;
    const uint64_t per = 8 + ((f & 4) ? 8 : 0) + ((f & 16) ? 8 : 0);
    const uint64_t extra = ((f & 1) ? 8 : 0) + ((f & 2) ? 8 : 0);
    if (f & 8) {  // group
      const uint64_t nr = b_.u64(p);
      if (nr > (end - p) / per)
        bad(p, "read group of " + std::to_string(nr) + " values past the record");
      p += 8 + extra + nr * per;
    } else {
      p += per + extra;
    }
  }
  chain_.clear();
  const uint8_t cpumode = misc & 7;
  bool kernel = cpumode == 1 || cpumode == 3;
  if (take(kSampleCallchain)) {
    const uint64_t nr = b_.u64(p);
    if (nr > (end - p - 8) / 8)
      bad(p, "callchain of " + std::to_string(nr) + " addresses runs past its record");
    for (uint64_t i = 0; i < nr; ++i) {
      const uint64_t v = b_.u64(p + 8 + 8 * i);
      if (v >= kContextMax) {
        kernel = v == kContextKernel || v == kContextHv || v == kContextGuestKernel;
        continue;
      }
      chain_.push_back(frameOf(v, kernel, pid));
    }
  }
  if (chain_.empty() && (t & kSampleIp)) chain_.push_back(frameOf(ip, kernel, pid));
  // A sample with neither a call chain nor an ip still counts: at an unknown address, as perf
  // report shows it ([unknown]).
  if (chain_.empty()) chain_.push_back(frameOf(0, kernel, pid));
  const uint64_t st = stacks_.intern(chain_, r_);
  r_.samples.push({time, threads_.index(pid, tid, r_), static_cast<uint64_t>(&a - r_.attrs.data()),
                   period, st, cpu});
}

// Pass 2: one record, in time order.
void Reader::apply(uint64_t at) {
  const uint32_t type = b_.u32(at);
  const uint16_t misc = b_.u16(at + 4), size = b_.u16(at + 6);
  const uint64_t end = at + size;
  switch (type) {
    case kSample: sample(at, end, misc); break;
    case kMmap:
    case kMmap2: {
      const uint64_t fixed = type == kMmap ? 8 + 32 : 8 + 32 + 24 + 8;
      b_.need(at, fixed, end, "mmap record");
      MappingRec m;
      m.pid = static_cast<int32_t>(b_.u32(at + 8));
      if ((misc & 7) == 1) m.pid = -1;  // the kernel's
      m.start = b_.u64(at + 16);
      m.length = b_.u64(at + 24);
      m.pgoff = b_.u64(at + 32);
      if (type == kMmap2 && (misc & (1u << 14)))  // build id in place of device and inode
        m.buildId.assign(reinterpret_cast<const char*>(b_.d.data() + at + 44),
                         std::min<size_t>(b_.d[at + 40], 20));
      m.path = b_.str(at + fixed, end);
      addMapping(std::move(m));
      break;
    }
    case kComm: {
      b_.need(at, 16, end, "comm record");
      threads_.setComm(static_cast<int32_t>(b_.u32(at + 12)), b_.str(at + 16, end));
      // An exec (misc 0x2000) keeps the old image's mappings, as perf does: the new image's
      // MMAPs replace what they overlap, and until they come, samples in the execve call
      // still have their user frames in the old image.
      break;
    }
    case kFork: {
      b_.need(at, 24, end, "fork record");
      const int32_t pid = static_cast<int32_t>(b_.u32(at + 8)),
                    ppid = static_cast<int32_t>(b_.u32(at + 12)),
                    tid = static_cast<int32_t>(b_.u32(at + 16)),
                    ptid = static_cast<int32_t>(b_.u32(at + 20));
      threads_.inheritComm(ptid, tid);
      if (pid != ppid)
        if (auto parent = maps_.find(ppid); parent != maps_.end()) {
          auto copy = parent->second;
          maps_[pid] = std::move(copy);
          ++mapsChanged_;
        }
      break;
    }
    case kLost:
      b_.need(at, 24, end, "lost record");
      r_.lost += b_.u64(at + 16);
      break;
    case kExit:
    case kThrottle:
    case kUnthrottle:
    case kFinishedInit: break;
    default: warnOnce(type, at);
  }
}

// Applies the held records up to flushUpTo_ (`all`: all), in time order, then file order; then
// releases the input's pages below those still held (a file of GBs does not stay resident).
void Reader::flush(bool all, uint64_t scanned) {
  // A round's records come as ascending runs: what is held from the round before, then each
  // CPU's buffer (std::stable_sort here was an eighth of the instructions of reading a 134 MB
  // recording).
  sortRuns(entries_, merged_, runs_,
           [](const Entry& a, const Entry& b) { return a.time < b.time; });
  const auto upTo =
      all ? entries_.end()
          : std::partition_point(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.time <= flushUpTo_; });
  for (auto e = entries_.begin(); e != upTo; ++e) apply(e->offset);
  entries_.erase(entries_.begin(), upTo);
  flushUpTo_ = latest_;
  uint64_t low = scanned;
  for (const Entry& e : entries_) low = std::min(low, e.offset);
  releaser_.upTo(b_.d.data() + low);
}

Recording Reader::run() {
  try {
    header();
    flush(true, b_.d.size());
  } catch (const Error& e) {
    if (expanded_.empty()) throw;
    throw Error(e.status(), kFmt,
                "in the records decompressed from PERF_RECORD_COMPRESSED (perf record -z), at "
                "byte " +
                    std::to_string(e.offset()) + " of their stream: " + e.message());
  }
  if (r_.attrs.empty()) bad(0, "no perf_event_attr");
  return std::move(r_);
}

}  // namespace

Recording parseRecording(std::span<const uint8_t> data) { return Reader(data).run(); }

std::unordered_map<std::string, std::string> buildIdTable(std::span<const uint8_t> data) {
  return Reader(data).buildIds();
}

}  // namespace profpack::perf
