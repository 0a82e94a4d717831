// The symbol table of an ELF module, indexed for lookups: libdw's choice of symbol for an
// address, and perf's (with the entries of the procedure linkage table).
#pragma once

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbolize/elf.h"
#include "symbolize/plt.h"

namespace profpack {

// The symbol table, indexed for lookups that cost the symbols near an address. libdw's
// dwfl_module_addrinfo scans every symbol per lookup: naming the 20,000 addresses of a g++
// recording from cc1plus's 60,000 symbols took 16 s. The choice is libdw's (0.188,
// __libdwfl_addrsym), whose tests compare the two (tests/test_symbolize.cpp):
// - a symbol with a size that covers the address: among the global and weak ones if any covers
//   it, else among the local ones; taken in table order, a later one replaces the one chosen
//   if it starts closer to the address, or binds more strongly (global, weak, local), or at
//   the same start is smaller without binding less strongly;
// - else a sizeless label (assembly) in the address's section, at or past the end of every
//   symbol below the address: the last such label in libdw's order (global ones, then local).
class SymbolIndex {
  struct Sym {
    uint64_t addr = 0, size = 0;
    bool absolute = false;  // SHN_ABS and the like: a label only at its own address
    size_t name = 0;
    uint32_t order = 0;  // its index in the table
    int bind = 0;        // higher binds more strongly: global, weak, local, other
  };

 public:
  explicit SymbolIndex(Dwfl_Module* mod) {
    // The main file's allocated sections, each [start, end] with its end (as libdw's section
    // lookup takes them): a label names an address in its own section only.
    Dwarf_Addr bias = 0;
    if (Elf* main = dwfl_module_getelf(mod, &bias)) {
      Elf_Scn* scn = nullptr;
      while ((scn = elf_nextscn(main, scn)) != nullptr) {
        GElf_Shdr shdr;
        if (gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_ALLOC))
          sections_.push_back({shdr.sh_addr + bias, shdr.sh_addr + bias + shdr.sh_size});
      }
    }
    const int n = dwfl_module_getsymtab(mod);
    for (int i = 1; i < n; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      GElf_Word shndx = 0;
      const char* name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, nullptr, nullptr);
      if (!name || !*name || shndx == SHN_UNDEF) continue;
      const int type = GELF_ST_TYPE(sym.st_info);
      if (type == STT_SECTION || type == STT_FILE || type == STT_TLS) continue;
      const int bind = GELF_ST_BIND(sym.st_info);
      Sym& s = syms_.emplace_back();
      s.addr = addr;
      s.size = sym.st_size;
      s.name = names_.size();
      s.order = static_cast<uint32_t>(i);
      s.bind = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
      s.absolute = shndx >= SHN_LORESERVE;
      names_.push_back(name);
    }
    std::stable_sort(syms_.begin(), syms_.end(),
                     [](const Sym& a, const Sym& b) { return a.addr < b.addr; });
    if (Elf* main = dwfl_module_getelf(mod, &bias)) readPlt(main, bias);
    maxEnd_.resize(syms_.size());
    maxEndGlobal_.resize(syms_.size());
    uint64_t end = 0, endGlobal = 0;
    for (size_t i = 0; i < syms_.size(); ++i) {
      end = std::max(end, syms_[i].addr + syms_[i].size);
      if (syms_[i].bind != 1) endGlobal = std::max(endGlobal, syms_[i].addr + syms_[i].size);
      maxEnd_[i] = end;
      maxEndGlobal_[i] = endGlobal;
    }
  }

  // lookup()'s name, or where other symbols start at the chosen one's address (aliases:
  // __mmap, mmap64), the one perf keeps of them (tools/perf/util/symbol.c, choose_best_symbol):
  // one with a size before one without, then a weak one loses to any other, a global one beats
  // the rest, fewer leading underscores win, then the longer name; on a tie, the first in the
  // table. Where perf's choice does not cover the address (a shorter alias), lookup()'s stays.
  // An address in a PLT entry is named by the function the entry calls, with "@plt" after it
  // (`plt` set, the name without the suffix), as perf synthesizes these (readPlt).
  // symbolAt's name of such an entry is the whole one. `start`, if given: the address where
  // the symbol (or entry) named starts.
  const char* lookupAsPerf(uint64_t address, bool* plt = nullptr, uint64_t* start = nullptr) const {
    if (plt) *plt = false;
    auto e = std::upper_bound(plt_.begin(), plt_.end(), address,
                              [](uint64_t a, const PltEntry& x) { return a < x.addr; });
    if (e != plt_.begin() && address - std::prev(e)->addr < std::prev(e)->size) {
      if (start) *start = std::prev(e)->addr;
      if (!plt) {  // made at the first ask: a hostile file's entries may all name one long name
        const size_t i = static_cast<size_t>(std::prev(e) - plt_.begin());
        auto [it, fresh] = pltNames_.try_emplace(i);
        if (fresh)
          it->second = std::string(plt_[i].name, strnlen(plt_[i].name, kMaxPltName)) + "@plt";
        return it->second.c_str();
      }
      *plt = true;
      return std::prev(e)->name;
    }
    const Sym* s = find(address);
    if (!s) return nullptr;
    const Sym* best = s;
    auto [lo, hi] = std::equal_range(syms_.begin(), syms_.end(), *s,
                                     [](const Sym& a, const Sym& b) { return a.addr < b.addr; });
    for (auto it = lo; it != hi; ++it)
      if (&*it != best && it->absolute == s->absolute && perfPrefers(*it, *best)) best = &*it;
    if (best->size && address - best->addr >= best->size) best = s;
    if (start) *start = best->addr;
    return names_[best->name];
  }

  const char* lookup(uint64_t address, uint64_t* start = nullptr) const {
    const Sym* s = find(address);
    if (s && start) *start = s->addr;
    return s ? names_[s->name] : nullptr;
  }

 private:
  // libdw's choice for `address` (the class comment's rules).
  const Sym* find(uint64_t address) const {
    const size_t i =
        static_cast<size_t>(std::upper_bound(syms_.begin(), syms_.end(), address,
                                             [](uint64_t a, const Sym& s) { return a < s.addr; }) -
                            syms_.begin());
    if (i == 0) return nullptr;
    // The sized symbols covering the address (none before the last symbol ending at or below
    // it), in table order.
    std::vector<const Sym*>& cover = cover_;
    cover.clear();
    for (size_t j = i; j-- > 0 && maxEnd_[j] > address;)
      if (syms_[j].size && address - syms_[j].addr < syms_[j].size) cover.push_back(&syms_[j]);
    std::sort(cover.begin(), cover.end(),
              [](const Sym* a, const Sym* b) { return a->order < b->order; });
    if (const Sym* s = closest(cover, false)) return s;
    // The global pass's label: one at its end of the global symbols, the last in table order.
    const Sym* label = lastLabel(i, maxEndGlobal_[i - 1], address, false);
    if (label && label->addr == address) return label;
    if (const Sym* s = closest(cover, true)) return s;
    // The local pass's, if any, comes later; either must be at the end of every symbol.
    const uint64_t minLabel = maxEnd_[i - 1];
    if (const Sym* local = lastLabel(i, minLabel, address, true)) label = local;
    return label && label->addr >= minLabel ? label : nullptr;
  }

  // perf's choose_best_symbol between two aliases: whether `a` wins over `b`.
  bool perfPrefers(const Sym& a, const Sym& b) const {
    if ((a.size != 0) != (b.size != 0)) return a.size != 0;
    const int byName = perfNameOrder(a.bind == 2, a.bind == 3, names_[a.name], b.bind == 2,
                                     b.bind == 3, names_[b.name]);
    return byName != 0 ? byName < 0 : a.order < b.order;
  }

 public:
  // The lowest and highest address of the sized symbols (0, 0 if none).
  std::pair<uint64_t, uint64_t> range() const {
    uint64_t lo = ~uint64_t{0}, hi = 0;
    for (const Sym& s : syms_)
      if (s.size) {
        lo = std::min(lo, s.addr);
        hi = std::max(hi, s.addr + s.size);
      }
    return hi ? std::make_pair(lo, hi) : std::make_pair(uint64_t{0}, uint64_t{0});
  }

 private:
  // libdw's choice among covering symbols of one pass (global and weak, or local).
  static const Sym* closest(const std::vector<const Sym*>& cover, bool local) {
    const Sym* best = nullptr;
    for (const Sym* s : cover) {
      if ((s->bind == 1) != local) continue;
      if (!best || best->addr < s->addr || best->bind < s->bind ||
          (best->addr == s->addr && ((best->size > s->size && best->bind <= s->bind) ||
                                     (best->size >= s->size && best->bind < s->bind))))
        best = s;
    }
    return best;
  }
  // The last label (in table order) of one pass starting at `at`, in the address's section.
  const Sym* lastLabel(size_t i, uint64_t at, uint64_t address, bool local) const {
    const Sym* best = nullptr;
    const long section = sectionOf(address);
    for (size_t j = i; j-- > 0 && syms_[j].addr >= at;) {
      const Sym& s = syms_[j];
      if (s.size || s.addr != at || (s.bind == 1) != local) continue;
      const bool same = s.absolute ? s.addr == address : sectionOf(s.addr) == section;
      if (same && (!best || s.order > best->order)) best = &s;
    }
    return best;
  }
  // The section holding `a`; else the one ending at it (libdw's lookup counts a section's end
  // in, where no section starts there).
  long sectionOf(uint64_t a) const {
    for (size_t k = 0; k < sections_.size(); ++k)
      if (a >= sections_[k].first && a < sections_[k].second) return static_cast<long>(k);
    for (size_t k = 0; k < sections_.size(); ++k)
      if (a == sections_[k].second) return static_cast<long>(k);
    return -1;
  }

  // perf's symbols for the entries of the procedure linkage table (plt.h), with their names.
  void readPlt(Elf* elf, uint64_t bias) {
    plt_ = pltEntries(elf, bias, [this](uint64_t a) { return startingAt(a); });
  }
  // The name perf takes among the symbols starting at `address`, or null.
  const char* startingAt(uint64_t address) const {
    auto it = std::lower_bound(syms_.begin(), syms_.end(), address,
                               [](const Sym& s, uint64_t a) { return s.addr < a; });
    if (it == syms_.end() || it->addr != address) return nullptr;
    const Sym* best = &*it;
    for (; it != syms_.end() && it->addr == address; ++it)
      if (perfPrefers(*it, *best)) best = &*it;
    return names_[best->name];
  }

  std::vector<PltEntry> plt_;          // by address
  mutable std::unordered_map<size_t, std::string> pltNames_;  // entry -> its name with "@plt"
  // find()'s covering symbols, kept for the next lookup (a vector made per lookup was a
  // quarter of find()'s cost on the 15,700 cc1plus addresses of a g++ recording). Lookups are
  // of one thread, as pltNames_'s.
  mutable std::vector<const Sym*> cover_;
  std::vector<Sym> syms_;
  std::vector<uint64_t> maxEnd_;        // per position: the highest end of a symbol up to it
  std::vector<uint64_t> maxEndGlobal_;  // the same over global and weak symbols
  std::vector<std::pair<uint64_t, uint64_t>> sections_;
  // Into the symbol tables' string data, which live as long as the module.
  std::vector<const char*> names_;
};

}  // namespace profpack
