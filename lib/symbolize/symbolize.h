// Symbolization (`profpack symbolize`, profpack_profile_symbolize, PROFPACK_READ_SYMBOLIZE):
// names, source files, lines and inline chains for the instruction addresses of a profile's
// model, found in the binaries its mappings name, stored in the IR's symbol section. The model
// of a symbolized profile, which groups addresses into the functions the section names, is
// source.h's. Format-neutral: it reads the model's locations and stacks layers only.
//
// Modules: elf.cpp (one ELF file through libdwfl), binaries.cpp (which file is a mapping's),
// writer.cpp (the addresses to name and the symbol section), table.cpp (the section decoded),
// source.cpp (the model of a symbolized profile), memory.cpp (names kept for a merge).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "profile.h"

namespace profpack {

struct SymbolizeOptions {
  // Directories searched (in order, before the path a mapping names) for a binary by its base
  // name and by its recorded path under the directory; then those of the PROFPACK_BINARY_PATH
  // environment variable (':'-separated).
  std::vector<std::string> binaryPath;
  // The program of a profile whose functions are ids (XRay: the instrumented executable),
  // which maps them to entry addresses and names them.
  std::string binary;
  // When the profile was written (its file's modification time), nanoseconds since the epoch;
  // 0 where unknown. A binary modified later is not taken for a mapping that records no build id.
  int64_t profileTime = 0;
  // A kallsyms table of the recorded kernel, to name kernel frames ("": /proc/kallsyms where it
  // is the recorded kernel's: its build id, else its release, is the profile's).
  std::string kallsyms;
  // Names from the binaries' symbol tables only, as `perf script` and pprof's fastlocal give
  // them: no DWARF is read (often compressed, it is decompressed whole when opened), so no
  // source files or lines and no inline frames. The kernel's frames are named as ever.
  bool symbolTablesOnly = false;
  // Functions and their inline frames from DWARF, but no source file or line looked up (the
  // line tables: a tenth of naming a perf recording of a small program): for outputs that hold
  // no lines.
  bool noLines = false;
  // C++ functions named without their parameters and return type, as perf names them
  // (withoutParameters(): "ns::f<int>" for "void ns::f<int>(int) const"). The registry's rule
  // for a format (namesWithoutParameters() in formats/registry.h): perf's recordings.
  bool namesWithoutParameters = false;
  // Naming on read (nameFromBinaries): the profile will be queried or converted, not written
  // as .ppk, so the copy of its IR with the symbol section may wait until the IR is asked for
  // (withSymbolsOf's `later`).
  bool deferSection = false;
};

// A copy of `profile` with its symbol section (lib/ir/profile.capnp, Symbols), replacing any it
// had. Mappings that cannot be symbolized (binary missing, not a regular file, not ELF, not the
// binary that ran: binaries.h's mismatch(), no loadable segment at the mapping's offset) are
// warnings of the result, naming the mapping and the reason. A profile whose functions are named
// already (Callgrind, Cachegrind) comes back unchanged with a warning. One whose functions are ids
// (XRay) needs options.binary: each function is named, with the file and line of its entry.
std::unique_ptr<Profile> symbolizeProfile(const Profile& profile, const SymbolizeOptions& options);

// What namingAhead() began (binaries.cpp's resolver with its options).
class NamingAhead {
 public:
  struct Impl;
  explicit NamingAhead(std::unique_ptr<Impl> impl);
  ~NamingAhead();
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Naming when a profile is read: `profile` with a symbol section as symbolizeProfile gives it,
// where its functions are unnamed addresses, it has no symbol section yet and some mapping's
// binary is found; else `profile` itself. Warnings: the profile's, then one per file found but
// not taken as not the binary that ran (a mapping without a binary is no warning here).
// `ahead`: what namingAhead() began for this profile (or null); it was given these same
// options, and its copy of them is the one used.
std::unique_ptr<Profile> nameFromBinaries(std::unique_ptr<Profile> profile,
                                          const SymbolizeOptions& options,
                                          NamingAhead* ahead = nullptr);

// Begins naming before a profile is read: the binaries `mappings` name (a path and a build id
// each: those a format records ahead of its samples, registry.h's binariesAhead()) are opened
// on a thread of their own meanwhile, and the kernel's symbol table read. Null where there are
// none. Pass the result to nameFromBinaries() with the same options; destroying it unused
// waits for the thread.
std::unique_ptr<NamingAhead> namingAhead(const std::vector<Mapping>& mappings,
                                         const SymbolizeOptions& options);

// The names of symbolized profiles, kept to name a profile made of them (a merge of several
// runs of the same program): each address by its object and its place in the object, so that
// a run that loaded the object elsewhere finds the same names.
class SymbolMemory {
 public:
  SymbolMemory();
  ~SymbolMemory();
  // Keeps the names of `profile`'s symbol section (none: nothing kept). The first profile's
  // names win where two name the same address.
  void add(const Profile& profile);
  bool empty() const;
  // `profile` with a symbol section of the kept names of its addresses, where its functions
  // are unnamed addresses and some name was kept; else `profile` as it is.
  std::unique_ptr<Profile> apply(std::unique_ptr<Profile> profile) const;

  struct Names;

 private:
  std::unique_ptr<Names> names_;
};

}  // namespace profpack
