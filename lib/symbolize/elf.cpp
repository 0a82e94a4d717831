// ELF symbolization through libdwfl (elfutils). The module is reported at its link-time
// addresses (load bias 0), so a caller turns a profile's run-time address into a link-time one
// with loadBias() and looks that up.

#include "symbolize/elf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "symbolize/aranges.h"
#include "symbolize/debugfile.h"
#include "symbolize/scopes.h"
#include "symbolize/symbol_index.h"
#include "util/text.h"

namespace profpack {

namespace {

char* gDebuginfoPath = nullptr;  // libdwfl's default: ":.debug:/usr/lib/debug"
const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = findDebuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &gDebuginfoPath,
};
// For a binary opened without DWARF: its debug file (found for its symbol table) is not copied.
const Dwfl_Callbacks kCallbacksNoDwarf = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = findDebuginfoAsIs,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &gDebuginfoPath,
};

}  // namespace

int perfNameOrder(bool weakA, bool globalA, std::string_view a, bool weakB, bool globalB,
                  std::string_view b) {
  if (weakA != weakB) return weakA ? 1 : -1;
  if (globalA != globalB) return globalA ? -1 : 1;
  const size_t ua = std::min(a.find_first_not_of('_'), a.size()),
               ub = std::min(b.find_first_not_of('_'), b.size());
  if (ua != ub) return ua < ub ? -1 : 1;
  if (a.size() != b.size()) return a.size() > b.size() ? -1 : 1;
  return 0;
}

struct ElfBinary::Impl {
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  std::unique_ptr<SymbolIndex> symbols;  // made at the first lookup that needs it
  const SymbolIndex& symbolIndex() {
    if (!symbols) symbols = std::make_unique<SymbolIndex>(module);
    return *symbols;
  }
  DemangleCache demangled;  // the module's strings live as long as it
  // Per unit (by its DIE's offset), made at the unit's first lookup.
  std::unordered_map<Dwarf_Off, std::unique_ptr<UnitScopes>> units;
  const UnitScopes& scopes(Dwarf_Die* cu, size_t& budget) {
    std::unique_ptr<UnitScopes>& u = units[dwarf_dieoffset(cu)];
    if (!u) u = std::make_unique<UnitScopes>(cu, budget);
    return *u;
  }
  ~Impl() {
    if (dwfl) dwfl_end(dwfl);
  }
};

ElfBinary::~ElfBinary() = default;

Elf_Scn* sectionNamed(Elf* elf, std::string_view name) {
  size_t strings = 0;
  if (elf_getshdrstrndx(elf, &strings) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    const char* n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, strings, sh.sh_name) : nullptr;
    if (n && name == n) return scn;
  }
  return nullptr;
}

std::unique_ptr<ElfBinary> ElfBinary::open(const std::string& path, std::string& why, bool dwarf,
                                           bool lines, bool parameters) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    why = std::strerror(errno);
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    why = "is a directory";
    return nullptr;
  }
  if (!S_ISREG(st.st_mode)) {
    why = "is not a regular file (a device, FIFO or socket)";
    return nullptr;
  }
  // O_NONBLOCK: should the path have become a FIFO since stat(), open does not wait.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = std::strerror(errno);
    return nullptr;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    why = "is not a regular file";
    return nullptr;
  }
  std::unique_ptr<ElfBinary> b(new ElfBinary());
  b->impl_ = std::make_unique<Impl>();
  Impl& im = *b->impl_;
  im.demangled = DemangleCache(parameters);
  im.dwfl = dwfl_begin(dwarf ? &kCallbacks : &kCallbacksNoDwarf);
  if (!im.dwfl) {
    ::close(fd);
    why = dwfl_errmsg(-1);
    return nullptr;
  }
  dwfl_report_begin(im.dwfl);
  const char* base = std::strrchr(path.c_str(), '/');
  im.module = dwfl_report_elf(im.dwfl, base ? base + 1 : path.c_str(), path.c_str(), fd, 0, true);
  if (!im.module) {
    ::close(fd);  // consumed only on success
    why = std::string("not a usable ELF file: ") + dwfl_errmsg(-1);
    return nullptr;
  }
  dwfl_report_end(im.dwfl, nullptr, nullptr);

  GElf_Addr elfBias = 0;
  Elf* elf = dwfl_module_getelf(im.module, &elfBias);
  GElf_Ehdr eh;
  if (!elf || !gelf_getehdr(elf, &eh)) {
    why = std::string("unreadable ELF header: ") + dwfl_errmsg(-1);
    return nullptr;
  }
  b->dwarf_ = dwarf;
  b->lines_ = lines;
  b->parameters_ = parameters;
  b->positionDependent_ = eh.e_type == ET_EXEC;
  b->modified_ = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  // A cut file: its section headers or a segment's bytes end past the end of the file.
  const uint64_t fileSize = static_cast<uint64_t>(st.st_size);
  if (eh.e_shoff > fileSize || uint64_t{eh.e_shnum} * eh.e_shentsize > fileSize - eh.e_shoff) {
    why = "truncated ELF file: its section headers end past its " + std::to_string(fileSize) +
          " bytes";
    return nullptr;
  }
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) {
    why = "unreadable program headers";
    return nullptr;
  }
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, static_cast<int>(i), &ph)) {
      why = "unreadable program header " + std::to_string(i);
      return nullptr;
    }
    if (ph.p_type == PT_LOAD && (ph.p_offset > fileSize || ph.p_filesz > fileSize - ph.p_offset)) {
      why = "truncated ELF file: a loadable segment ends past its " + std::to_string(fileSize) +
            " bytes";
      return nullptr;
    }
    if (ph.p_type == PT_LOAD)
      b->segments_.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_align});
  }
  if (b->segments_.empty()) {
    why = "has no loadable segment";
    return nullptr;
  }
  // Whether the file (or its separate debug file, which libdwfl finds) should have DWARF.
  if (dwarf) b->indexUnits(sectionNamed(elf, ".debug_info") || sectionNamed(elf, ".gnu_debuglink"));
  const unsigned char* bits = nullptr;
  GElf_Addr idAddr = 0;
  int idLen = dwfl_module_build_id(im.module, &bits, &idAddr);
  if (idLen > 0)
    b->buildId_.assign(reinterpret_cast<const char*>(bits), static_cast<size_t>(idLen));
  return b;
}

bool ElfBinary::loadBias(uint64_t start, uint64_t offset, uint64_t& bias) const {
  if (positionDependent_) {
    bias = 0;
    return true;
  }
  for (const Segment& s : segments_) {
    // A mapping starts at a page boundary at or below the segment's offset.
    const uint64_t align = s.align > 1 ? s.align : 1;
    const uint64_t pageOffset = s.offset & ~(align - 1);
    if (offset < pageOffset || offset >= s.offset + (s.filesz ? s.filesz : 1)) continue;
    // File offset o is at link-time address s.vaddr + (o - s.offset), and at run time at
    // start + (o - offset).
    bias = start - offset + s.offset - s.vaddr;
    return true;
  }
  return false;
}

std::string ElfBinary::misfit(uint64_t start, uint64_t limit, uint64_t offset,
                              bool linkTime) const {
  if (limit <= start) return "";  // the profile gives no range to compare
  if (linkTime) {
    for (const Segment& s : segments_)
      if (start >= s.vaddr && limit - s.vaddr <= s.memsz) return "";
    return "no loadable segment holds addresses " + hexString(start) + "-" + hexString(limit);
  }
  for (const uint64_t page : {uint64_t{4096}, uint64_t{16384}, uint64_t{65536}}) {
    if (start % page != 0 || offset % page != 0) continue;
    const auto up = [page](uint64_t v) { return (v + page - 1) / page * page; };
    for (const Segment& s : segments_) {
      if ((s.offset & ~(page - 1)) != offset) continue;
      if (positionDependent_ && (s.vaddr & ~(page - 1)) != start) continue;
      const uint64_t size = limit - start;
      if (up(s.offset + s.filesz) - offset == size || up(s.offset + s.memsz) - offset == size)
        return "";
    }
  }
  return "no loadable segment spans the mapping's " + std::to_string(limit - start) +
         " bytes at file offset " + hexString(offset);
}

void ElfBinary::indexUnits(bool hasDebugInfo) {
  // libdw finds a unit through .debug_aranges, which clang does not write, and (in elfutils
  // 0.188) does not fall back to the units' own ranges: index those once. The same pass finds
  // debug information too damaged to use.
  Dwarf_Addr b = 0;
  Dwarf* dw = dwfl_module_getdwarf(impl_->module, &b);
  unitBias_ = b;
  if (!dw) {
    if (hasDebugInfo) problem_ = std::string("unreadable DWARF: ") + dwfl_errmsg(-1);
    return;
  }
  // The units .debug_aranges lists (GCC writes it) are taken from it: reading each unit's DIE
  // for its ranges decodes its abbreviations, libc's 2,063 units 40 M instructions of the
  // naming of a small recording. The others are read. The section is read here
  // (readUnitRanges), else by libdw.
  std::vector<UnitRange> ranges;
  const bool byUnit = readUnitRanges(dw, ranges);  // ranges name units' headers, else DIEs
  Dwarf_Aranges* aranges = nullptr;
  size_t count = 0;
  if (!byUnit && dwarf_getaranges(dw, &aranges, &count) == 0)
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Addr start = 0;
      Dwarf_Word length = 0;
      Dwarf_Off die = 0;
      // A unit listed with no length (only) is read as the others: its ranges may be there.
      if (dwarf_getarangeinfo(dwarf_onearange(aranges, i), &start, &length, &die) != 0 ||
          length == 0)
        continue;
      ranges.push_back({start, length, die});
    }
  std::vector<uint64_t> listed;  // the units' (or DIEs') offsets, ascending
  for (const UnitRange& u : ranges) listed.push_back(u.unit);
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  std::vector<uint64_t> dieOf(byUnit ? listed.size() : 0, 0);  // per listed unit (0: none)
  Dwarf_Off off = 0, next = 0;
  size_t headerSize = 0;
  int r = 0;
  while ((r = dwarf_nextcu(dw, off, &next, &headerSize, nullptr, nullptr, nullptr)) == 0) {
    const auto at = std::lower_bound(listed.begin(), listed.end(), byUnit ? off : off + headerSize);
    if (at != listed.end() && *at == (byUnit ? off : off + headerSize)) {
      if (byUnit) dieOf[static_cast<size_t>(at - listed.begin())] = off + headerSize;
      off = next;
      continue;
    }
    Dwarf_Die die;
    if (!dwarf_offdie(dw, off + headerSize, &die)) {
      r = -1;
      break;
    }
    Dwarf_Addr base = 0, start = 0, end = 0;
    ptrdiff_t k = 0;
    while ((k = dwarf_ranges(&die, k, &base, &start, &end)) > 0)
      if (start < end) units_.push_back({start, end, off + headerSize});
    off = next;
  }
  for (const UnitRange& u : ranges) {
    uint64_t die = u.unit;
    if (byUnit) {  // a range of no unit's header is dropped
      die = dieOf[static_cast<size_t>(std::lower_bound(listed.begin(), listed.end(), u.unit) -
                                      listed.begin())];
      if (die == 0) continue;
    }
    if (u.start + u.length > u.start) units_.push_back({u.start, u.start + u.length, die});
  }
  if (r < 0)
    problem_ = "corrupt DWARF at .debug_info offset " + std::to_string(off) + ": " +
               dwarf_errmsg(-1) + " (names from the symbol table only past it)";
  std::sort(units_.begin(), units_.end(),
            [](const Unit& a, const Unit& b) { return a.start < b.start; });
  uint64_t reach = 0;
  for (Unit& u : units_) u.reach = reach = std::max(reach, u.end);
}

bool ElfBinary::findUnit(uint64_t address, Dwarf_Die& cu, uint64_t& bias) {
  const uint64_t at = address - unitBias_;
  auto it = std::upper_bound(units_.begin(), units_.end(), at,
                             [](uint64_t a, const Unit& u) { return a < u.start; });
  while (it != units_.begin()) {
    --it;
    if (it->reach <= at) break;  // no unit from here down reaches the address
    if (at < it->end) {
      Dwarf_Addr b = 0;
      Dwarf* dw = dwfl_module_getdwarf(impl_->module, &b);
      if (!dw) return false;
      if (!dwarf_offdie(dw, it->die, &cu)) {
        // A unit .debug_aranges lists is first read here.
        if (problem_.empty())
          problem_ = "corrupt DWARF at .debug_info offset " + std::to_string(it->die) + ": " +
                     dwarf_errmsg(-1) + " (names from the symbol table only there)";
        return false;
      }
      bias = b;
      return true;
    }
  }
  return false;
}

const std::vector<SymbolFrame>& ElfBinary::lookup(uint64_t address) {
  auto it = cache_.find(address);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(address, resolve(address, false)).first->second;
}

const std::vector<SymbolFrame>& ElfBinary::lookupEntry(uint64_t address) {
  auto it = entryCache_.find(address);
  if (it != entryCache_.end()) return it->second;
  return entryCache_.emplace(address, resolve(address, true)).first->second;
}

const char* ElfBinary::symbolAt(uint64_t address) {
  return dwarf_ ? impl_->symbolIndex().lookup(address) : impl_->symbolIndex().lookupAsPerf(address);
}

const char* ElfBinary::symbolAtByLibdw(uint64_t address) {
  GElf_Off off = 0;
  GElf_Sym sym;
  return dwfl_module_addrinfo(impl_->module, address, &off, &sym, nullptr, nullptr, nullptr);
}

std::pair<uint64_t, uint64_t> ElfBinary::symbolRange() { return impl_->symbolIndex().range(); }

// The symbol tables' name of `address` as perf gives it (demangled as the binary was opened to);
// an entry of the procedure linkage table as "free@plt". Empty where no symbol names it.
std::string ElfBinary::perfName(uint64_t address, uint64_t* start) {
  bool plt = false;
  const char* name = impl_->symbolIndex().lookupAsPerf(address, &plt, start);
  if (!name || !*name) return "";
  if (!plt) return impl_->demangled(name);
  // At most perf's 1,024 characters: one copy per address looked up is kept.
  std::string n = impl_->demangled(name).substr(0, kMaxPltName);
  return n + "@plt";
}

std::vector<SymbolFrame> ElfBinary::resolve(uint64_t address, bool declarations) {
  std::vector<SymbolFrame> out;
  std::string file;
  uint64_t line = 0;
  Dwarf_Addr bias = 0;
  Dwarf_Die cuFound;
  // The unit from the index made at open, not dwfl_module_addrdie (or dwfl_module_getsrc,
  // which calls it): libdw would read every unit listed in .debug_aranges again, into an object
  // per unit (libc: 2,083 of them, 2.6-4.7 ms and 2.2 MB, for the few units a profile's
  // addresses are in). The line is found in the unit's table as dwfl_module_getsrc finds it.
  Dwarf_Die* cu = dwarf_ && findUnit(address, cuFound, bias) ? &cuFound : nullptr;
  if (cu && lines_) {
    if (Dwarf_Line* l = dwarf_getsrc_die(cu, address - bias)) {
      int n = 0;
      const char* f = dwarf_linesrc(l, nullptr, nullptr);
      if (f && dwarf_lineno(l, &n) == 0) {
        file = f;
        line = n > 0 ? static_cast<uint64_t>(n) : 0;
      }
    }
  }
  if (cu) {
    // The function DIEs holding the address, outermost first: the subprogram, then each
    // inlined copy within it.
    std::vector<Dwarf_Die> path;
    size_t budget = kScopeBudget;
    const UnitScopes& scopes = impl_->scopes(cu, budget);
    scopes.find(address - bias, path, budget);
    if ((budget == 0 || !scopes.complete()) && problem_.empty())
      problem_ = "DWARF: a compilation unit too large or malformed to search";
    std::string f = file;
    uint64_t l = line;
    for (size_t i = path.size(); i-- > 0;) {  // innermost first
      out.push_back({dieName(&path[i], impl_->demangled), f, l, declarationOf(&path[i])});
      if (i > 0 && lines_) callSite(cu, &path[i], f, l);  // the next frame out is at the call
    }
    if (declarations && lines_ && !path.empty()) {
      // Where the function holding the address is declared: its subprogram DIE.
      int declLine = 0;
      if (const char* declFile = dwarf_decl_file(&path[0]))
        out.back().file = declFile;  // else the entry's line-table file
      out.back().line = dwarf_decl_line(&path[0], &declLine) == 0 && declLine > 0 ? declLine : 0;
    }
  }
  // No DWARF scope (or an unnamed one): the symbol table's name. Named as perf names (without
  // parameters), the function itself (not a function inlined into it) is always named by its
  // symbol, as perf chooses it: DWARF names a C++ function of an anonymous namespace, or a
  // lambda, without its scopes ("anon" for perf's "(anonymous namespace)::anon").
  uint64_t start = 0;
  if (!parameters_ && !out.empty()) {
    std::string name = perfName(address, &start);
    if (!name.empty()) {
      // Where DWARF names the function as its symbol does, its DWARF declaration keys it, as it
      // keys the function's inlined copies: a function both called (the symbol) and inlined
      // elsewhere (or into itself, a recursive one) is one function, not two rows of one file
      // and name (`top`: both.c:step 4,132 and both.c:step 3,985; pprof: step 8,117).
      const bool asDwarf = out.back().function == name && out.back().declaration != 0;
      out.back().function = std::move(name);
      if (!asDwarf) out.back().declaration = symbolDeclaration(start);
    }
  }
  if (out.empty() || out.back().function.empty()) {
    std::string name;
    if (parameters_ && dwarf_) {  // libdw's choice, as addr2line names it
      const char* n = impl_->symbolIndex().lookup(address, &start);
      if (n && *n) name = impl_->demangled(n);
    } else {
      name = perfName(address, &start);
    }
    if (!name.empty()) {
      if (out.empty())
        out.push_back({std::move(name), file, line, symbolDeclaration(start)});
      else
        out.back() = {std::move(name), out.back().file, out.back().line, symbolDeclaration(start)};
    }
  }
  // A chain whose inner frames have no name keeps them under the outer function's name.
  for (SymbolFrame& f : out)
    if (f.function.empty()) {
      f.function = out.back().function;
      f.declaration = out.back().declaration;
    }
  if (!out.empty() && out.back().function.empty()) out.clear();
  return out;
}

}  // namespace profpack
