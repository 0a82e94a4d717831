// A libelf descriptor ended with its scope.
#pragma once

#include <libelf.h>

namespace profpack {

// `elf` is null where elf_begin failed.
struct ElfHandle {
  Elf* elf;
  explicit ElfHandle(Elf* e) : elf(e) {}
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
};

}  // namespace profpack
