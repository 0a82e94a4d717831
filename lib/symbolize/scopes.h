// The function scopes of a DWARF compilation unit that hold an address.
#pragma once

#include <elfutils/libdw.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/text.h"

namespace profpack {

// A function DIE's name: its linkage name demangled (by `demangled`), else its DW_AT_name (both
// followed through DW_AT_abstract_origin and DW_AT_specification).
std::string dieName(Dwarf_Die* die, DemangleCache& demangled);
// Where a function DIE is declared: the line (DW_AT_decl_line, followed through
// DW_AT_abstract_origin and DW_AT_specification; for a member function without one, GCC's
// lambda call operators, its class's, reached through DW_AT_object_pointer) in the low 32
// bits, and above them 31 bits of a hash of the file (DW_AT_decl_file, "." and ".."
// resolved), so that two static functions of one name declared on the same line of two files
// differ. 0 if no line.
uint64_t declarationOf(Dwarf_Die* die);
// Where an inlined copy was called from: DW_AT_call_file / DW_AT_call_line of its DIE.
void callSite(Dwarf_Die* cu, Dwarf_Die* inlined, std::string& file, uint64_t& line);

// DIEs visited at most per lookup (and per index of a unit): a bound on the work a malformed
// unit can cause.
inline constexpr size_t kScopeBudget = size_t{1} << 22;

// Appends to `path` the subprogram and inlined-subroutine DIEs under `parent` whose ranges hold
// `pc`, outermost first, looking into namespaces and types (which hold C++ definitions) and
// lexical blocks. True once a DIE holding pc was found. (libdw's dwarf_getscopes leaks its
// result when its second pass fails on malformed DWARF, in elfutils 0.188; and it continues
// past an inlined copy into its abstract definition, where the function it was inlined into is
// wanted.)
bool findScopes(Dwarf_Die* parent, Dwarf_Addr pc, std::vector<Dwarf_Die>& path, int depth,
                size_t& budget);

// The outermost scopes of one unit (the DIEs findScopes stops at first: subprograms, inlined
// copies and lexical blocks at the unit's level or in its namespaces and types; in a C unit not
// in its types, where C has no functions) by address, made in one walk of the unit. A lookup is
// then a binary search and a walk of one function's own DIEs, where findScopes from the unit walks
// every DIE before the function's: a large C++ unit has tens of thousands, and a perf recording
// names thousands of addresses.
class UnitScopes {
 public:
  // Walks `cu`, charging `budget` per DIE; `complete()` is false where it ran out.
  UnitScopes(Dwarf_Die* cu, size_t& budget);
  bool complete() const { return complete_; }
  // What findScopes(cu, pc, path, 0, budget) appends. In a C unit whose own scopes miss pc,
  // that walk itself, types included: a producer that labels other code as C may have put a
  // function in a type.
  void find(Dwarf_Addr pc, std::vector<Dwarf_Die>& path, size_t& budget) const;

 private:
  void walk(Dwarf_Die* parent, int depth, size_t& budget);
  struct Range {
    Dwarf_Addr low, high;  // [low, high)
    uint32_t scope;        // index into scopes_, in the unit's DIE order
  };
  std::vector<Dwarf_Die> scopes_;
  std::vector<Range> ranges_;        // by low
  std::vector<Dwarf_Addr> maxHigh_;  // per range: the highest high of it and those before it
  Dwarf_Die cu_;
  bool enterTypes_;            // false in C units: their types hold no functions
  bool skippedTypes_ = false;  // some type was not entered
  bool complete_ = true;
};

}  // namespace profpack
