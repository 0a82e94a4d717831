// One ELF binary opened for symbolization with elfutils' libdwfl: function names from the
// symbol tables and DWARF, source lines from the line tables, inline chains from
// DW_TAG_inlined_subroutine scopes (as elfutils' addr2line -i does), separate debug info found
// through the build id and .gnu_debuglink under /usr/lib/debug.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace profpack {

// One frame of an inline chain.
struct SymbolFrame {
  std::string function;  // demangled
  std::string file;      // "" if unknown
  uint64_t line = 0;     // 0 if unknown
  // What tells apart functions of this name in one object (two static functions of one name in
  // two files, a C++ function's overloads named without parameters): where DWARF declares the
  // function (declarationOf: its line, and a hash of its file above bit 32); for a name from
  // the symbol table, its symbol's address + 2^63 (one symbol is one function, as perf counts
  // them). 0: the name alone.
  uint64_t declaration = 0;
};

// SymbolFrame::declaration of a function named by a symbol at `address`.
inline constexpr uint64_t symbolDeclaration(uint64_t address) {
  return address | (uint64_t{1} << 63);
}

// perf's choice between two symbols at one address (tools/perf/util/symbol.c,
// choose_best_symbol), past its rule on sizes: a weak one loses to any other, a global one
// beats the rest, fewer leading underscores win, then the longer name. Negative where `a` wins,
// positive where `b` does, 0 on a tie (perf then keeps the first in the table).
int perfNameOrder(bool weakA, bool globalA, std::string_view a, bool weakB, bool globalB,
                  std::string_view b);

// The section of `elf` named `name`; null where there is none, or the section names cannot be
// read.
Elf_Scn* sectionNamed(Elf* elf, std::string_view name);

class ElfBinary {
 public:
  // Opens `path` as an ELF file. Returns null with `why` set if it is missing, not a regular
  // file (a directory, a device, a FIFO: never read or waited on), or not a usable ELF file.
  // `dwarf` false: lookups name from the symbol tables only (no source lines, no inline
  // frames), and the DWARF (often compressed, and decompressed whole when opened) is never
  // read. `lines` false: no source file or line is looked up (functions and inline frames
  // still come from the DWARF). `parameters` false: C++ functions are named without their
  // parameters (withoutParameters(), as perf names them).
  static std::unique_ptr<ElfBinary> open(const std::string& path, std::string& why,
                                         bool dwarf = true, bool lines = true,
                                         bool parameters = true);
  ~ElfBinary();
  ElfBinary(const ElfBinary&) = delete;
  ElfBinary& operator=(const ElfBinary&) = delete;

  // The load bias of a mapping of this file at `start` that maps file offset `offset`: from
  // the PT_LOAD segment holding that offset (0 for a position-dependent executable). False if
  // no loadable segment holds it.
  bool loadBias(uint64_t start, uint64_t offset, uint64_t& bias) const;
  // Whether a mapping [start, limit) of this file at file offset `offset` could have been
  // made by loading it: a loader maps each PT_LOAD segment on its own, from the page holding
  // its first byte to the page holding its last, so some segment must start in the mapping's
  // first page (4, 16 or 64 KiB pages) and end in its last; a position-dependent executable
  // also at the segment's own address. `linkTime` (the profile gives link-time addresses): the
  // range lies within one segment's addresses. "" if it fits, else why not.
  std::string misfit(uint64_t start, uint64_t limit, uint64_t offset, bool linkTime) const;
  // The file's modification time, nanoseconds since the epoch.
  int64_t modified() const { return modified_; }
  // The inline chain at link-time address `address`, innermost first; empty if no symbol
  // covers it (without DWARF: the symbol table's function alone). Cached per address.
  const std::vector<SymbolFrame>& lookup(uint64_t address);
  // The same for a function's entry address, each frame at its function's declaration
  // (DW_AT_decl_file, DW_AT_decl_line): where the function is, rather than the line of its
  // first instruction (which instrumentation sleds may lack).
  const std::vector<SymbolFrame>& lookupEntry(uint64_t address);
  const std::string& buildId() const { return buildId_; }  // raw bytes ("" if none)
  // The symbol table's name for `address` (null if none), as lookups take it where DWARF has
  // none: from a sorted index; opened without DWARF, among aliases the one perf names.
  // symbolAtByLibdw asks libdw (dwfl_module_addrinfo), which scans every symbol per call: the
  // tests' reference for the index.
  const char* symbolAt(uint64_t address);
  const char* symbolAtByLibdw(uint64_t address);
  // The lowest and highest address of the file's sized symbols (0, 0 if none).
  std::pair<uint64_t, uint64_t> symbolRange();
  // Makes the symbol table's index now, not at the first lookup that needs it: for a thread
  // that opens binaries ahead of their lookups (cc1plus's took 28 M instructions).
  void indexSymbols() { symbolRange(); }
  // Problems met while reading debug information (e.g. corrupt DWARF), once each.
  const std::string& problem() const { return problem_; }

 private:
  ElfBinary() = default;
  std::vector<SymbolFrame> resolve(uint64_t address, bool declarations);
  // `start`, if given: where the symbol named starts.
  std::string perfName(uint64_t address, uint64_t* start = nullptr);
  // The compilation unit whose address ranges hold `address`, from an index of every unit's
  // ranges (for binaries without .debug_aranges). False if none.
  bool findUnit(uint64_t address, Dwarf_Die& cu, uint64_t& bias);
  void indexUnits(bool hasDebugInfo);  // at open: units_, and problem_ if the DWARF is damaged

  struct Segment {
    uint64_t offset, vaddr, filesz, memsz, align;
  };
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool dwarf_ = true;  // open()'s `dwarf`
  bool lines_ = true;  // open()'s `lines`
  bool parameters_ = true;  // open()'s `parameters`
  bool positionDependent_ = false;
  int64_t modified_ = 0;
  std::vector<Segment> segments_;
  std::string buildId_;
  std::string problem_;
  struct Unit {
    uint64_t start, end, die;  // a range of a unit, and the offset of the unit's DIE
    uint64_t reach = 0;        // the highest end of the units up to this one
  };
  uint64_t unitBias_ = 0;
  std::vector<Unit> units_;  // ascending by start
  std::unordered_map<uint64_t, std::vector<SymbolFrame>> cache_, entryCache_;
};

}  // namespace profpack
