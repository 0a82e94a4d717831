// Names of code a JIT compiler generated (node --perf-basic-prof, Java's perf-map-agent, the
// CPython 3.12 perf trampoline, LuaJIT), from the map it writes for perf: /tmp/perf-PID.map,
// one "START SIZE NAME" line per piece of code (hex numbers without 0x). perf report takes it
// for a process's anonymous executable mappings, and so does symbolization.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolize/elf.h"
#include "util/io.h"

namespace profpack {

// Whether perf would name a mapping of this path from the process's map (anonymous memory:
// "//anon", "/dev/zero", "/anon_hugepage", and memfd files).
bool isJitMapping(const std::string& path);

class PerfMap {
 public:
  // Reads a map. Null, with `why`, where it is no regular file (a FIFO would block the read),
  // belongs to neither this user nor root (perf's rule: /tmp is everyone's, and a map there is
  // trusted for the names it gives), cannot be read, or names no code. Lines that are not
  // "START SIZE NAME" are passed over, as perf passes them.
  static std::unique_ptr<PerfMap> load(const std::string& path, std::string& why);
  // The code at `address`, as one frame: of the entries whose range holds it, the one with the
  // greatest start (code inside other code; of one start, the later line: code compiled
  // again); null where none does.
  const std::vector<SymbolFrame>* lookup(uint64_t address) const;
  size_t size() const { return entries_.size(); }

 private:
  PerfMap() = default;
  struct Entry {
    uint64_t start, end;
    uint64_t name;    // offset of the name in the file
    uint32_t length;  // of the name
  };
  std::unique_ptr<InputFile> file_;
  std::vector<Entry> entries_;   // by start; of one start, the last line last
  std::vector<uint64_t> reach_;  // per entry: the greatest end of it and the entries before
  // The frames handed out, made at the first lookup of each entry (a map of millions of lines
  // holds no string per line).
  mutable std::unordered_map<size_t, std::vector<SymbolFrame>> made_;
};

}  // namespace profpack
