// The entries of a binary's procedure linkage table, which no symbol table lists, named as perf
// names them ("free@plt"): what ElfBinary's perf naming takes for an address in one.
#pragma once

#include <gelf.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace profpack {

// The longest function name a PLT entry's name keeps (perf formats them into 1,024 bytes): a
// hostile file's entries may all name one very long symbol.
constexpr size_t kMaxPltName = 1024;

struct PltEntry {
  uint64_t addr, size;
  const char* name;  // the function the entry calls, in the ELF file's string data
};

// perf's symbols for the entries (tools/perf/util/symbol-elf.c, dso__synthesize_plt_symbols):
// entry i of .plt (after its header) or of .plt.sec calls the function of relocation i of
// .rela.plt (.rel.plt), in the order of their GOT slots on x86 (IFUNC relocations come last
// in the table but take their places among the slots), named by its dynamic symbol. An IFUNC
// relocation names no symbol: its entry takes `startingAt(resolver address)`, if not null.
// x86-64, i386 and AArch64, whose entry sizes are known; none for other machines, or where
// the sections are missing or not what they should be. Addresses are the file's plus `bias`;
// sorted by address.
std::vector<PltEntry> pltEntries(Elf* elf, uint64_t bias,
                                 const std::function<const char*(uint64_t)>& startingAt);

}  // namespace profpack
