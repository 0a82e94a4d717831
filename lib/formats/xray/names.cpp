// Function ids of an XRay-instrumented binary -> names, via Debian's libelf: the
// `xray_instr_map` section gives each sled's function address (ids count from 1, a new id each
// time a sled's function differs from the previous sled's), the ELF symbol tables name the
// addresses. Names are demangled (as `llvm-xray account` prints them).

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "error.h"
#include "formats/xray/xray.h"
#include "util/elf_handle.h"
#include "util/fd.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "xray";

struct InstrMap {
  std::vector<uint64_t> functionAddress{0};  // index = function id
  std::unordered_map<uint64_t, std::string> symbols;
};

InstrMap readInstrMap(const std::string& binaryPath) {
  InstrMap map;
  std::vector<uint64_t>& functionAddress = map.functionAddress;
  std::unordered_map<uint64_t, std::string>& symbols = map.symbols;
  if (elf_version(EV_CURRENT) == EV_NONE)
    throw Error(Status::internal, kFmt, "libelf is not usable");
  Fd fd(open(binaryPath.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0)
    throw Error(Status::io, kFmt, "cannot open " + binaryPath + ": " + std::strerror(errno));
  ElfHandle elf(elf_begin(fd.fd, ELF_C_READ, nullptr));
  if (!elf.elf || elf_kind(elf.elf) != ELF_K_ELF)
    throw Error(Status::malformed, kFmt, binaryPath + " is not an ELF file", 0);
  GElf_Ehdr eh;
  if (!gelf_getehdr(elf.elf, &eh))
    throw Error(Status::malformed, kFmt, binaryPath + ": unreadable ELF header", 0);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    throw Error(Status::unsupported, kFmt,
                binaryPath + ": only 64-bit little-endian instrumentation maps are supported", 0);
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf.elf, &shstrndx) != 0)
    throw Error(Status::malformed, kFmt, binaryPath + ": no section name table", 0);

  bool haveMap = false;
  for (Elf_Scn* scn = elf_nextscn(elf.elf, nullptr); scn; scn = elf_nextscn(elf.elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(elf.elf, shstrndx, sh.sh_name);
    if (name && std::strcmp(name, "xray_instr_map") == 0) {
      Elf_Data* d = elf_getdata(scn, nullptr);
      if (!d || !d->d_buf || d->d_size % 32 != 0)
        throw Error(Status::malformed, kFmt,
                    binaryPath + ": xray_instr_map is not a whole number of 32-byte sleds",
                    sh.sh_offset);
      haveMap = true;
      const uint8_t* p = static_cast<const uint8_t*>(d->d_buf);
      uint64_t prev = 0;
      for (size_t off = 0; off < d->d_size; off += 32) {
        uint64_t fn;
        std::memcpy(&fn, p + off + 8, 8);
        uint8_t version = p[off + 18];
        if (version >= 2) fn += sh.sh_addr + off + 8;  // relative to the field's own address
        if (off == 0 || fn != prev) functionAddress.push_back(fn);
        prev = fn;
      }
    } else if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
      Elf_Data* d = elf_getdata(scn, nullptr);
      if (!d || sh.sh_entsize == 0) continue;
      size_t n = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < n; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(d, static_cast<int>(i), &sym)) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0) continue;
        const char* s = elf_strptr(elf.elf, sh.sh_link, sym.st_name);
        if (!s || !*s) continue;
        auto it = symbols.find(sym.st_value);
        // Prefer the static symbol table's (first seen) and global names.
        if (it == symbols.end() ||
            (sh.sh_type == SHT_SYMTAB && GELF_ST_BIND(sym.st_info) == STB_GLOBAL))
          symbols[sym.st_value] = s;
      }
    }
  }
  if (!haveMap)
    throw Error(Status::malformed, kFmt, binaryPath + " has no xray_instr_map section", 0);
  return map;
}

}  // namespace

std::vector<uint64_t> xrayFunctionEntries(const std::string& binaryPath) {
  return readInstrMap(binaryPath).functionAddress;
}

std::vector<std::string> xrayFunctionNames(const std::string& binaryPath) {
  const InstrMap map = readInstrMap(binaryPath);
  const std::vector<uint64_t>& functionAddress = map.functionAddress;
  const std::unordered_map<uint64_t, std::string>& symbols = map.symbols;
  std::vector<std::string> names(functionAddress.size());
  for (size_t id = 1; id < functionAddress.size(); ++id) {
    auto it = symbols.find(functionAddress[id]);
    if (it != symbols.end()) names[id] = demangle(it->second.c_str());
  }
  return names;
}

}  // namespace profpack
