// Separate debug information (a .debug file by build id or .gnu_debuglink) for libdwfl.
#pragma once

#include <elfutils/libdwfl.h>

namespace profpack {

// A Dwfl_Callbacks.find_debuginfo: libdwfl's standard search, which goes to debuginfod only
// where DEBUGINFOD_URLS names a server.
int findDebuginfo(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                  const char* fileName, const char* debuglink, GElf_Word crc, char** found);

}  // namespace profpack
