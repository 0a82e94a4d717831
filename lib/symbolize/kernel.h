// Kernel frames named from a kallsyms table (/proc/kallsyms, or a copy of it): the symbol whose
// range holds an address, as perf chooses among symbols at one address. Used only for the
// kernel that was recorded: the running kernel's table where its build id (or, where the
// recording names none, its release) is the recording's, else a table the user names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "symbolize/elf.h"
#include "util/io.h"

namespace profpack {

// Whether a mapping of this path is the kernel's (perf's "[kernel.kallsyms]", its "_text" and
// "_stext" variants, and pprof's copies of them).
bool isKernelMapping(const std::string& path);

class Kallsyms {
 public:
  // Reads a kallsyms table ("ADDRESS TYPE NAME [MODULE]" lines). Null, with `why`, where it
  // cannot be read or holds no addresses (all zero: kptr_restrict hides them).
  static std::unique_ptr<Kallsyms> load(const std::string& path, std::string& why);
  // The function at `address`, as one frame; null where no symbol precedes it.
  const std::vector<SymbolFrame>* lookup(uint64_t address) const;

 private:
  struct Symbol {
    uint64_t address;
    std::string_view name;  // in file_
  };
  std::unique_ptr<InputFile> file_;         // the table as read
  std::vector<Symbol> symbols_;             // ascending by address, one per address
  mutable std::vector<SymbolFrame> frame_;  // the last lookup's
};

// The running kernel's GNU build id (raw bytes, from /sys/kernel/notes) and release (uname);
// "" where unknown.
std::string runningKernelBuildId();
std::string runningKernelRelease();

}  // namespace profpack
