// Separate debug information (a .debug file by build id or .gnu_debuglink) for libdwfl.
#pragma once

#include <elfutils/libdwfl.h>

#include <string>

namespace profpack {

// Where a build-id directory under `root` keeps the file of build id `id` (raw bytes):
// root/.build-id/xx/rest, the layout of perf's cache and of /usr/lib/debug.
std::string buildIdPath(const std::string& root, const std::string& id);

// A Dwfl_Callbacks.find_debuginfo: libdwfl's standard search, which goes to debuginfod only
// where DEBUGINFOD_URLS names a server; a file found with compressed sections is replaced by
// a copy with them decompressed, kept by build id (PROFPACK_DEBUG_CACHE, else
// $XDG_CACHE_HOME/profpack/debug, else $HOME/.cache/profpack/debug), which later calls take
// without searching.
int findDebuginfo(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                  const char* fileName, const char* debuglink, GElf_Word crc, char** found);
// The same, but a file found compressed is used as it is, not copied: for a binary opened
// without DWARF, whose debug file is read only for its symbol table (a copy made earlier is
// still taken).
int findDebuginfoAsIs(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                      const char* fileName, const char* debuglink, GElf_Word crc, char** found);

}  // namespace profpack
