// Where separate debug information is looked for (see debugfile.h).

#include "symbolize/debugfile.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kDebugRoot = "/usr/lib/debug";

// A regular file at `path` that is not `self` (the module's own file).
bool exists(const std::string& path, const struct stat* self = nullptr) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         !(self && st.st_dev == self->st_dev && st.st_ino == self->st_ino);
}

// Whether libdwfl's local search could find a separate debug file for the module: a superset
// of the files dwfl_standard_find_debuginfo opens under the default path (the build id under
// /usr/lib/debug/.build-id; the debuglink name, the file's base name and the base name with
// .debug, in the file's directory, its .debug and .dwz subdirectories, and under
// /usr/lib/debug by every tail of the directory; for the file and its real path).
bool localDebugCandidate(Dwfl_Module* mod, const char* fileName, const char* debuglink) {
  const unsigned char* id = nullptr;
  GElf_Addr where = 0;
  const int idLen = dwfl_module_build_id(mod, &id, &where);
  if (idLen > 1 &&
      exists(buildIdPath(kDebugRoot, std::string(reinterpret_cast<const char*>(id), idLen)) +
             ".debug"))
    return true;
  if (debuglink && debuglink[0] == '/' && exists(debuglink)) return true;
  struct stat self {};
  if (fileName && ::stat(fileName, &self) != 0) self = {};
  std::vector<std::string> files;
  if (fileName && *fileName) {
    files.emplace_back(fileName);
    if (char* real = ::realpath(fileName, nullptr)) {
      files.emplace_back(real);
      std::free(real);
    }
  }
  const std::string link = debuglink ? debuglink : "";
  for (const std::string& file : files) {
    const size_t slash = file.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : file.substr(0, slash);
    const std::string base = file.substr(slash == std::string::npos ? 0 : slash + 1);
    std::vector<std::string> names{base, base + ".debug"};
    if (!link.empty()) {
      names.push_back(link);
      names.push_back(link.substr(link.rfind('/') == std::string::npos ? 0 : link.rfind('/') + 1));
    }
    std::vector<std::string> dirs{dir, dir + "/.debug", dir + "/.dwz", kDebugRoot,
                                  std::string(kDebugRoot) + "/.dwz"};
    for (size_t i = 0; i < dir.size(); ++i)
      if (dir[i] == '/') dirs.push_back(std::string(kDebugRoot) + dir.substr(i));
    for (const std::string& d : dirs)
      for (const std::string& n : names)
        if (!n.empty() && exists(d + "/" + n, &self)) return true;
  }
  return false;
}

}  // namespace

std::string buildIdPath(const std::string& root, const std::string& id) {
  const std::string hex = hexBytes(id);
  return root + "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2);
}

// libdwfl's standard search for separate debug information (dwfl_standard_find_debuginfo),
// except that it goes to debuginfod only where the user has configured a server. Where its
// local search finds nothing, the standard search loads the debuginfod client, and with it
// libcurl, GnuTLS, Kerberos and LDAP (some 30 libraries, 10 ms), even when DEBUGINFOD_URLS is
// unset and the client will ask no one: a process that embeds profpack does not need them.
int findDebuginfo(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                  const char* fileName, const char* debuglink, GElf_Word crc, char** found) {
  const char* urls = std::getenv("DEBUGINFOD_URLS");
  if ((urls && *urls) || localDebugCandidate(mod, fileName, debuglink))
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, fileName, debuglink, crc,
                                        found);
  errno = 0;  // nothing found, and no error
  return -1;
}

}  // namespace profpack
