// What every format offers the registry (lib/formats/registry.h): the one list of format ids,
// read and write options, and the codec entry points. Formats include this header; nothing
// above the registry includes a format's own header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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
  folded = 7,       // collapsed stacks
  traceEvent = 8,   // Chrome Trace Event JSON
  pprof = 9,        // profile.proto, gzip-compressed or not
  cpuprofile = 10,  // read only: V8 CPU profile (.cpuprofile)
  perf = 11,        // read only: Linux perf.data
  perfScript = 12,  // read only: `perf script` text
};

// A directory read as one profile (perf record --threads): the names of its regular files,
// sorted, and their bytes, opened at the first ask (a directory of other files is not opened
// beyond what tells it apart) and held until the read ends.
struct DirectoryFiles {
  std::vector<std::string> names;
  std::function<std::span<const uint8_t>(size_t index)> open;
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
  // The format the profile is to be written in, where the caller knows it: the registry then
  // decides deferIR (set where that format does not write the input's IR as read).
  FormatId outputFormat = FormatId::unknown;
};

// A write parameter, declared by the format it applies to (lib/formats/<name>/params.h) and
// collected by the registry (writeParams()). Integer parameters have bounds and a default, and
// may name their values (`choices`); string parameters are taken as given.
struct WriteParam {
  int key;            // its profpack_write_param value (include/profpack/profpack.h)
  FormatId format;    // the output format that reads it
  const char* cName;  // "PROFPACK_WRITE_XRAY_MODE", for error messages of the C API
  const char* name;   // "xray-mode": its name as text (the CLI's --xray-mode)
  const char* help;   // one line: what it chooses
  const char* value;  // its values in words, for messages and help ("basic or fdr")
  bool isString = false;
  int64_t lowest = 0, highest = 0, defaultValue = 0;
  const char* range = "";         // every value in words ("-1 (as read), 0 (basic) or 1 (FDR)")
  const char* choices = nullptr;  // named values, "basic=0,fdr=1"; null: numbers only
  bool (*allowed)(int64_t) = nullptr;  // a further check within the bounds, or null

  bool accepts(int64_t v) const { return v >= lowest && v <= highest && (!allowed || allowed(v)); }
};

// The write parameters given for one write, by key: each writer reads its own.
class WriteOptions {
 public:
  void set(const WriteParam& p, int64_t value) { ints_[p.key] = value; }
  void setString(const WriteParam& p, std::string value) { strings_[p.key] = std::move(value); }
  int64_t get(const WriteParam& p) const {
    auto it = ints_.find(p.key);
    return it == ints_.end() ? p.defaultValue : it->second;
  }
  std::string getString(const WriteParam& p) const {
    auto it = strings_.find(p.key);
    return it == strings_.end() ? std::string() : it->second;
  }

 private:
  std::map<int, int64_t> ints_;
  std::map<int, std::string> strings_;
};

// Header lines as (key, value) pairs, in order.
using HeaderPairs = std::vector<std::pair<std::string, std::string>>;

// A merge a format does itself (gperftools: samples per identical stack), one profile at a
// time: memory grows with the merged result, not with the inputs.
class FormatMerge {
 public:
  virtual ~FormatMerge() = default;
  virtual void add(const Profile& profile) = 0;
  // A difference NEW - BASE in formats that keep one as samples (pprof): `profile` added as
  // the base, its values negated and its samples marked as the base's, so that a reader can
  // take percentages of the base's total. False where the format's merge does not.
  virtual bool takesBase() const { return false; }
  virtual void addBase(const Profile& profile) { add(profile); }
  virtual std::unique_ptr<Profile> finish() = 0;
};

}  // namespace profpack
