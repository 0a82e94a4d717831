#include "symbolize/aranges.h"

#include <gelf.h>

#include <string_view>

#include "symbolize/elf.h"
#include "util/bytes.h"

namespace profpack {

namespace {

// The bytes of section `name` of `elf`; false if there is none, or it is compressed still.
bool sectionBytes(Elf* elf, std::string_view name, const uint8_t*& data, size_t& size) {
  Elf_Scn* scn = sectionNamed(elf, name);
  GElf_Shdr shdr;
  if (!scn || !gelf_getshdr(scn, &shdr)) return false;
  if ((shdr.sh_flags & SHF_COMPRESSED) || shdr.sh_type == SHT_NOBITS) return false;
  Elf_Data* d = elf_getdata(scn, nullptr);
  if (!d || (!d->d_buf && d->d_size)) return false;
  data = static_cast<const uint8_t*>(d->d_buf);
  size = d->d_size;
  return true;
}

// A little-endian field of `n` bytes (2, 4 or 8).
uint64_t field(const uint8_t* p, size_t n) { return n == 2 ? rd16(p) : n == 4 ? rd32(p) : rd64(p); }

}  // namespace

bool readUnitRanges(Dwarf* dw, std::vector<UnitRange>& out) {
  Elf* elf = dwarf_getelf(dw);
  GElf_Ehdr eh;
  if (!elf || !gelf_getehdr(elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type == ET_REL)
    return false;
  const uint8_t* d = nullptr;
  size_t size = 0;
  if (!sectionBytes(elf, ".debug_aranges", d, size)) return false;
  return parseUnitRanges({d, size}, out);
}

bool parseUnitRanges(std::span<const uint8_t> section, std::vector<UnitRange>& out) {
  const uint8_t* d = section.data();
  const size_t size = section.size();
  const size_t kept = out.size();
  auto fail = [&] {
    out.resize(kept);
    return false;
  };
  size_t at = 0;
  while (at < size) {
    // A set: its length (4 bytes, or 0xffffffff and 8), version 2, the unit's offset (4 or 8),
    // address size, segment selector size (0), then (address, length) pairs from the next
    // multiple of twice the address size past the set's start, up to a pair of zeros.
    const size_t set = at;
    if (size - at < 4) return fail();
    uint64_t length = field(d + at, 4);
    size_t offsetSize = 4;
    at += 4;
    if (length == 0xffffffff) {
      if (size - at < 8) return fail();
      length = field(d + at, 8);
      offsetSize = 8;
      at += 8;
    } else if (length >= 0xfffffff0) {
      return fail();
    }
    if (length > size - at) return fail();
    const size_t end = at + length;
    if (end - at < 2 + offsetSize + 2) return fail();
    if (field(d + at, 2) != 2) return fail();
    const uint64_t unit = field(d + at + 2, offsetSize);
    const size_t addressSize = d[at + 2 + offsetSize];
    if ((addressSize != 4 && addressSize != 8) || d[at + 3 + offsetSize] != 0) return fail();
    at += 4 + offsetSize;
    const size_t pair = 2 * addressSize;
    at = set + (at - set + pair - 1) / pair * pair;
    // A pair of zeros ends the set where the set ends there; one before that (a producer's bug
    // seen in real files) is passed over, as libdw passes over it.
    for (;;) {
      if (at > end || end - at < pair) return fail();  // no pair of zeros at the set's end
      const uint64_t start = field(d + at, addressSize),
                     len = field(d + at + addressSize, addressSize);
      at += pair;
      if (start == 0 && len == 0) {
        if (at >= end || end - at < pair) break;  // the set's end (or padding short of a pair)
        continue;
      }
      if (len != 0) out.push_back({start, len, unit});
    }
    at = end;
  }
  return true;
}

}  // namespace profpack
