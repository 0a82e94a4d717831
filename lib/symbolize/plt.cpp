#include "symbolize/plt.h"

#include <algorithm>

#include "symbolize/elf.h"

namespace profpack {

namespace {

struct Slot {
  uint64_t got, symbol, addend;
};

// The relocations of a .rela.plt or .rel.plt section, in table order.
std::vector<Slot> slotsOf(Elf* elf, Elf_Scn* scn, bool rela) {
  std::vector<Slot> slots;
  Elf_Data* data = elf_getdata(scn, nullptr);
  const size_t one = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
  if (!data || one == 0) return slots;
  for (size_t i = 0; (i + 1) * one <= data->d_size; ++i) {
    GElf_Rela r{};
    if (rela) {
      if (!gelf_getrela(data, static_cast<int>(i), &r)) break;
    } else {
      GElf_Rel x;
      if (!gelf_getrel(data, static_cast<int>(i), &x)) break;
      r.r_offset = x.r_offset;
      r.r_info = x.r_info;
    }
    slots.push_back({r.r_offset, GELF_R_SYM(r.r_info), static_cast<uint64_t>(r.r_addend)});
  }
  return slots;
}

}  // namespace

std::vector<PltEntry> pltEntries(Elf* elf, uint64_t bias,
                                 const std::function<const char*(uint64_t)>& startingAt) {
  std::vector<PltEntry> out;
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf, &eh)) return out;
  uint64_t header = 16, entry = 16;  // x86's
  const bool x86 = eh.e_machine == EM_X86_64 || eh.e_machine == EM_386;
  if (eh.e_machine == EM_AARCH64)
    header = 32;
  else if (!x86)
    return out;
  GElf_Shdr plt, sec, rel, dynsym;
  Elf_Scn* pltScn = sectionNamed(elf, ".plt");
  Elf_Scn* relScn = sectionNamed(elf, ".rela.plt");
  if (!relScn) relScn = sectionNamed(elf, ".rel.plt");
  // A debug file keeps the sections' headers without their contents (SHT_NOBITS).
  if (!pltScn || !relScn || !gelf_getshdr(pltScn, &plt) || !gelf_getshdr(relScn, &rel) ||
      plt.sh_type != SHT_PROGBITS || (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL))
    return out;
  Elf_Scn* symScn = elf_getscn(elf, rel.sh_link);
  Elf_Data* symData = symScn ? elf_getdata(symScn, nullptr) : nullptr;
  if (!symData || !gelf_getshdr(symScn, &dynsym)) return out;
  const bool rela = rel.sh_type == SHT_RELA;
  std::vector<Slot> slots = slotsOf(elf, relScn, rela);
  if (x86)
    std::stable_sort(slots.begin(), slots.end(),
                     [](const Slot& a, const Slot& b) { return a.got < b.got; });
  // Where the entries are: .plt.sec where the binary has one (no header), else .plt, after
  // its header unless the entries fill it.
  Elf_Scn* secScn = x86 ? sectionNamed(elf, ".plt.sec") : nullptr;
  uint64_t at = plt.sh_addr, end = plt.sh_addr + plt.sh_size;
  if (secScn && gelf_getshdr(secScn, &sec) && sec.sh_type == SHT_PROGBITS) {
    at = sec.sh_addr;
    end = sec.sh_addr + sec.sh_size;
  } else if (slots.size() * entry != plt.sh_size) {
    at += header;
  }
  for (const Slot& slot : slots) {
    if (at > end || end - at < entry) break;
    const char* name = nullptr;
    GElf_Sym sym;
    if (slot.symbol != 0) {
      if (gelf_getsym(symData, static_cast<int>(slot.symbol), &sym))
        name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
    } else if (rela) {  // IRELATIVE: the addend is the resolver's address
      name = startingAt(slot.addend + bias);
    }
    if (name && *name) out.push_back({at + bias, entry, name});
    at += entry;
  }
  std::sort(out.begin(), out.end(),
            [](const PltEntry& a, const PltEntry& b) { return a.addr < b.addr; });
  return out;
}

}  // namespace profpack
