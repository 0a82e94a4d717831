#include "symbolize/plt.h"

#include <algorithm>
#include <unordered_map>

#include "symbolize/elf.h"

namespace profpack {

namespace {

constexpr uint64_t kIrelative64 = 37;  // R_X86_64_IRELATIVE

struct Slot {
  uint64_t got, symbol, type, addend;
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
    slots.push_back({r.r_offset, GELF_R_SYM(r.r_info), GELF_R_TYPE(r.r_info),
                     static_cast<uint64_t>(r.r_addend)});
  }
  return slots;
}

// A section of code with its contents in the file (a debug file keeps the headers of .plt and
// .plt.sec without their contents, SHT_NOBITS): its header, else false. Its size then bounds
// the entries, whatever the relocation table says.
bool codeSection(Elf_Scn* scn, GElf_Shdr& sh) {
  if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS) return false;
  Elf_Data* d = elf_rawdata(scn, nullptr);  // libelf checks that it lies within the file
  return d && d->d_size == sh.sh_size;
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
  Elf_Scn* relScn = sectionNamed(elf, ".rela.plt");
  if (!relScn) relScn = sectionNamed(elf, ".rel.plt");
  if (!codeSection(sectionNamed(elf, ".plt"), plt) || !relScn || !gelf_getshdr(relScn, &rel) ||
      (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL))
    return out;
  // x86's entries are 16 bytes, or 8 where the section says so (perf takes its sh_entsize).
  if (x86 && plt.sh_entsize == 8) entry = 8;
  Elf_Scn* symScn = elf_getscn(elf, rel.sh_link);
  Elf_Data* symData = symScn ? elf_getdata(symScn, nullptr) : nullptr;
  if (!symData || !gelf_getshdr(symScn, &dynsym) ||
      (dynsym.sh_type != SHT_DYNSYM && dynsym.sh_type != SHT_SYMTAB))
    return out;
  const bool rela = rel.sh_type == SHT_RELA;
  std::vector<Slot> slots = slotsOf(elf, relScn, rela);
  if (x86)
    std::stable_sort(slots.begin(), slots.end(),
                     [](const Slot& a, const Slot& b) { return a.got < b.got; });
  // Where the entries are: .plt.sec where the binary has one (no header), else .plt, after
  // its header unless the entries fill it.
  uint64_t at = plt.sh_addr, end = plt.sh_addr + plt.sh_size;
  if (x86 && codeSection(sectionNamed(elf, ".plt.sec"), sec)) {
    at = sec.sh_addr;
    end = sec.sh_addr + sec.sh_size;
  } else if (slots.size() * entry != plt.sh_size) {
    at += header;
  }
  // Each resolver's name once (a hostile file may list one address many times).
  std::unordered_map<uint64_t, const char*> resolvers;
  for (const Slot& slot : slots) {
    if (at > end || end - at < entry) break;
    const char* name = nullptr;
    GElf_Sym sym;
    if (slot.symbol != 0) {
      if (gelf_getsym(symData, static_cast<int>(slot.symbol), &sym))
        name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
    } else if (eh.e_machine == EM_X86_64 && slot.type == kIrelative64 && rela) {
      // The addend is the resolver's address (perf names these on x86-64 only).
      auto [it, fresh] = resolvers.try_emplace(slot.addend, nullptr);
      if (fresh) it->second = startingAt(slot.addend + bias);
      name = it->second;
    }
    if (name && *name) out.push_back({at + bias, entry, name});
    at += entry;
  }
  std::sort(out.begin(), out.end(),
            [](const PltEntry& a, const PltEntry& b) { return a.addr < b.addr; });
  return out;
}

}  // namespace profpack
