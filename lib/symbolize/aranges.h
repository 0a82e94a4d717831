// The address ranges of DWARF units from .debug_aranges, read from the section's bytes.
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <span>
#include <vector>

namespace profpack {

struct UnitRange {
  uint64_t start, length;  // link-time addresses
  uint64_t unit;           // the offset of its unit's header in .debug_info
};

// Appends the ranges of `dw`'s .debug_aranges, skipping empty ones, and returns true; false
// (with `out` as it was) where the section is not one this reads: none, compressed, of a
// big-endian file, of a relocatable file, or malformed. The caller then asks libdw.
//
// Why not dwarf_getaranges: libdw (0.188) reads each listed unit's header into a unit object of
// its own, with its tables, to give the offset of the unit's DIE: libc's 2,083 ranges took
// 2.6-4.7 ms and 2.2 MB of heap, most of it for units no address is ever looked up in. The unit
// headers' sizes come from dwarf_nextcu, which reads them and keeps nothing.
bool readUnitRanges(Dwarf* dw, std::vector<UnitRange>& out);

// The ranges of a .debug_aranges section's bytes (little-endian), as readUnitRanges reads them;
// false (with `out` as it was) if they are malformed: a set that runs past the section, a
// version other than 2, an address size other than 4 or 8, a segment selector, or a set
// without its closing pair of zeros.
bool parseUnitRanges(std::span<const uint8_t> section, std::vector<UnitRange>& out);

}  // namespace profpack
