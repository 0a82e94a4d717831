// Names of code a JIT compiler generated (node --perf-basic-prof, Java's perf-map-agent, the
// CPython 3.12 perf trampoline, LuaJIT), from the map it writes for perf: /tmp/perf-PID.map,
// one "START SIZE NAME" line per piece of code (hex numbers without 0x). perf report takes it
// for a process's anonymous executable mappings, and so does symbolization.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symbolize/elf.h"

namespace profpack {

// Whether perf would name a mapping of this path from the process's map (anonymous memory:
// "//anon", "/dev/zero", "/anon_hugepage", and memfd files).
bool isJitMapping(const std::string& path);

class PerfMap {
 public:
  // Reads a map. Null, with `why`, where it cannot be read or names no code. Lines that are not
  // "START SIZE NAME" are passed over, as perf passes them.
  static std::unique_ptr<PerfMap> load(const std::string& path, std::string& why);
  // The code at `address`, as one frame: the entry with the greatest start at or below it
  // whose range holds it (a later line for the same start, code compiled again, wins); null
  // where none does.
  const std::vector<SymbolFrame>* lookup(uint64_t address) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t start, end;
    std::vector<SymbolFrame> frame;  // one frame: the name
  };
  std::vector<Entry> entries_;  // by start; of one start, the last line last
};

}  // namespace profpack
