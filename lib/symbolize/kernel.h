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
  // A caller's frame at `address`: the function its return address - 1 is in. But the kernel
  // pads each function with 16 bytes before it (its __pfx_ symbol), so a function's very start
  // is never a return address (a trailing call returns to the padding's start): a frame there
  // is where an interrupt or exception stopped the function (the frame under
  // asm_common_interrupt), and it is that function, named at its address as perf names it.
  const std::vector<SymbolFrame>* lookupCaller(uint64_t address) const;

 private:
  // One kept line: a function or data symbol with an address and a name.
  struct Symbol {
    uint64_t address;
    std::string_view name;  // in file_
    char type;
  };
  // Where a lookup in the sorted part of the table starts: a group of symbols at a new address,
  // or a line within a long run after one (then with the group's choice among the lines before).
  struct Mark {
    static constexpr size_t kNone = ~size_t{0};
    uint64_t address;  // of the group
    size_t offset;     // of the line, in sorted_
    size_t best;       // of the group's choice so far (its kept line), or kNone
  };
  static size_t head(std::string_view line, uint64_t& address, char& type);
  static bool parse(std::string_view line, Symbol& s);
  static std::string_view lineAt(std::string_view text, size_t at);
  void lookupSorted(uint64_t address, const Symbol*& below, bool& above) const;

  std::unique_ptr<InputFile> file_;  // the table as read
  // The table's leading lines whose kept symbols ascend (the kernel's own, as it prints them),
  // parsed at lookup from the mark before the address (marks_, ascending by address).
  std::string_view sorted_;
  std::vector<Mark> marks_;
  // The lines after those (modules' symbols come in no order): parsed, sorted by address, one
  // per address (perf's choice among those there).
  std::vector<Symbol> rest_;
  mutable Symbol best_;                     // lookupSorted's
  mutable std::vector<SymbolFrame> frame_;  // the last lookup's
};

// The running kernel's GNU build id (raw bytes, from /sys/kernel/notes) and release (uname);
// "" where unknown.
std::string runningKernelBuildId();
std::string runningKernelRelease();

}  // namespace profpack
