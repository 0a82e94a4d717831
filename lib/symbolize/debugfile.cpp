// Where separate debug information is looked for (see debugfile.h).

#include "symbolize/debugfile.h"

#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"
#include "util/elf_handle.h"
#include "util/fd.h"
#include "util/io.h"
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
    const std::string root = kDebugRoot;
    std::vector<std::string> dirs{dir, dir + "/.debug", dir + "/.dwz", root, root + "/.dwz"};
    for (size_t i = 0; i < dir.size(); ++i)
      if (dir[i] == '/') dirs.push_back(std::string(kDebugRoot) + dir.substr(i));
    for (const std::string& d : dirs)
      for (const std::string& n : names)
        if (!n.empty() && exists(d + "/" + n, &self)) return true;
  }
  return false;
}

// --- The cache of decompressed debug files ----------------------------------------------
// libdw decompresses every compressed debug section of a file when it opens the file's DWARF
// (elfutils 0.188, dwarf_begin_elf), and the separate debug files distributions ship are
// compressed: libc's 2.3 MB of .debug_info inflates to 5.8 MB in 23 ms, its whole file in
// about 35 ms, every time a profile is named. A copy with the sections decompressed, kept by
// build id, is mapped instead in a fraction of a millisecond.

// A file whose copy would be larger (its size plus what its sections decompress to) is read in
// place: the copy is made in memory first.
constexpr uint64_t kMaxCopy = uint64_t{1} << 30;

// The directory's size is kept to PROFPACK_DEBUG_CACHE_SIZE bytes, else 2 GiB.
uint64_t maxCacheSize() {
  if (const char* v = std::getenv("PROFPACK_DEBUG_CACHE_SIZE")) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (end != v && *end == '\0') return n;
  }
  return uint64_t{2} << 30;
}

// The bytes the section headers of `elf` say a file of `size` bytes holds: false where one
// lies past the end (a cut file).
bool sectionsInFile(Elf* elf, uint64_t size) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) return false;
    if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
      return false;
  }
  return true;
}

// The sum of the decompressed sizes of `elf`'s compressed sections (0: none); false where a
// compression header cannot be read or the sum passes kMaxCopy (sizes a file declares).
bool decompressedSize(Elf* elf, uint64_t& total) {
  total = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) return false;
    if (!(sh.sh_flags & SHF_COMPRESSED)) continue;
    GElf_Chdr ch;
    if (!gelf_getchdr(scn, &ch) || ch.ch_size > kMaxCopy - total) return false;
    total += ch.ch_size;
  }
  return true;
}

// Whether `elf` refers to a supplementary file (.gnu_debugaltlink, dwz): its path may be
// relative to the file's own directory, which a copy elsewhere would not be in.
bool hasAltLink(Elf* elf) {
  size_t strndx = 0;
  if (elf_getshdrstrndx(elf, &strndx) != 0) return true;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, strndx, sh.sh_name) : nullptr;
    if (!name || std::strcmp(name, ".gnu_debugaltlink") == 0) return true;
  }
  return false;
}

// The GNU build id of `elf`'s notes ("" if none).
std::string buildIdOf(Elf* elf) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    GElf_Nhdr nh;
    size_t at = 0, nameAt = 0, descAt = 0;
    while ((at = gelf_getnote(data, at, &nh, &nameAt, &descAt)) > 0)
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          std::memcmp(static_cast<const char*>(data->d_buf) + nameAt, "GNU", 4) == 0)
        return std::string(static_cast<const char*>(data->d_buf) + descAt, nh.n_descsz);
  }
  return "";
}

// Whether `dir` is a directory of this user's that no one else may write to: the copies in it
// are taken for the binaries their names say, so a directory others can write to is not used.
bool ownDirectory(const std::string& dir) {
  struct stat st;
  return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// The directory of the cache: PROFPACK_DEBUG_CACHE ("off": none), else
// $XDG_CACHE_HOME/profpack/debug, else $HOME/.cache/profpack/debug.
std::string cacheDir() {
  if (const char* d = std::getenv("PROFPACK_DEBUG_CACHE"))
    return *d != '/' ? "" : d;  // "off", or not an absolute path: none
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
    return std::string(x) + "/profpack/debug";
  if (const char* h = std::getenv("HOME"); h && *h == '/')
    return std::string(h) + "/.cache/profpack/debug";
  return "";
}

bool makeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/')
      if (::mkdir(dir.substr(0, i).c_str(), 0755) != 0 && errno != EEXIST) return false;
  return ownDirectory(dir);
}

// Whether `name` is one the cache makes: 40 (or more) hex digits and ".debug", or that and a
// temporary file's suffix: AtomicFile's ".PID-N-HEX.tmp" (or the ".PID-N.tmp" of earlier
// versions).
bool cacheName(const std::string& name, bool& temporary) {
  const auto lowerHex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  size_t i = 0;
  while (i < name.size() && lowerHex(name[i])) ++i;
  if (i < 2 || name.compare(i, 6, ".debug") != 0) return false;
  i += 6;
  temporary = i < name.size();
  if (!temporary) return true;
  if (name.size() < i + 5 || name[i] != '.' || name.compare(name.size() - 4, 4, ".tmp") != 0)
    return false;
  for (size_t k = i + 1; k < name.size() - 4; ++k)
    if (!lowerHex(name[k]) && name[k] != '-') return false;
  return true;
}

// `path` opened, if it is a whole ELF file with build id `id` and no compressed section; else
// -1 (and a file of ours that is not is removed: a copy cut short or damaged).
int openCopy(const std::string& path, const std::string& id) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (fd.fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  bool good = false;
  {
    ElfHandle elf(elf_begin(fd.fd, ELF_C_READ_MMAP, nullptr));
    uint64_t compressed = 0;
    good = elf.elf && elf_kind(elf.elf) == ELF_K_ELF &&
           sectionsInFile(elf.elf, static_cast<uint64_t>(st.st_size)) &&
           decompressedSize(elf.elf, compressed) && compressed == 0 && buildIdOf(elf.elf) == id;
  }
  if (!good) {
    // Only the file looked at: another process may have renamed a good copy into its place.
    struct stat now {};
    if (::lstat(path.c_str(), &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev)
      ::unlink(path.c_str());
    return -1;
  }
  ::futimens(fd.fd, nullptr);  // its time says when it was last used, for the eviction below
  return fd.release();
}

// Removes the least recently used copies while the directory holds more than maxCacheSize(),
// and temporary files more than a day old (a process killed while it wrote a copy). Only
// files named as the cache names them are touched.
void evict(const std::string& dir, const std::string& keep) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  struct File {
    std::string path;
    int64_t used;
    uint64_t size;
  };
  std::vector<File> files;
  uint64_t total = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    bool temporary = false;
    struct stat st;
    const std::string path = dir + "/" + name;
    if (!cacheName(name, temporary) || ::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (temporary) {
      if (st.st_mtim.tv_sec + 86400 < ::time(nullptr)) ::unlink(path.c_str());
      continue;
    }
    files.push_back({path, int64_t{st.st_mtim.tv_sec}, static_cast<uint64_t>(st.st_size)});
    total += static_cast<uint64_t>(st.st_size);
  }
  ::closedir(d);
  std::sort(files.begin(), files.end(),
            [](const File& a, const File& b) { return a.used < b.used; });
  const uint64_t most = maxCacheSize();
  for (const File& f : files) {
    if (total <= most) break;
    if (f.path == keep) continue;
    if (::unlink(f.path.c_str()) == 0) total -= f.size;
  }
}

// A decompressed copy of the debug file open as `fd` at `path` (its sections decompressed by
// libelf, then laid out anew), written as an AtomicFile: renamed into place once synced, so
// that no reader sees part of it. -1 where it cannot be made (the original is then used).
int makeCopy(int fd, const std::string& dir, const std::string& path) {
  if (!makeDirs(dir)) return -1;
  try {
    AtomicFile out(path, 0644);
    std::vector<char> buf(1 << 20);
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd, buf.data(), buf.size(), at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return -1;
      if (n == 0) break;
      out.write(std::string_view(buf.data(), static_cast<size_t>(n)));
      at += n;
    }
    {
      ElfHandle elf(elf_begin(out.fd(), ELF_C_RDWR, nullptr));
      bool ok = elf.elf != nullptr;
      for (Elf_Scn* scn = ok ? elf_nextscn(elf.elf, nullptr) : nullptr; ok && scn;
           scn = elf_nextscn(elf.elf, scn)) {
        GElf_Shdr sh;
        ok = gelf_getshdr(scn, &sh) != nullptr;
        if (ok && (sh.sh_flags & SHF_COMPRESSED)) ok = elf_compress(scn, 0, 0) >= 0;
      }
      if (!ok || elf_update(elf.elf, ELF_C_WRITE) < 0) return -1;
    }
    out.commit();
  } catch (const Error&) {  // the temporary file could not be made, written or renamed
    return -1;
  } catch (const std::bad_alloc&) {
    return -1;
  }
  evict(dir, path);
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

// The cache's copy of the debug file `fd` (found at `*found`) for the module of build id
// `id`, made now if the file has compressed sections; else `fd` as it is.
int throughCache(int fd, const std::string& dir, const std::string& id, char** found) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return fd;
  bool compressed = false;
  {
    ElfHandle elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
    uint64_t size = 0;
    const uint64_t fileSize = static_cast<uint64_t>(st.st_size);
    compressed = elf.elf && elf_kind(elf.elf) == ELF_K_ELF && sectionsInFile(elf.elf, fileSize) &&
                 decompressedSize(elf.elf, size) && size > 0 && fileSize <= kMaxCopy - size &&
                 buildIdOf(elf.elf) == id && !hasAltLink(elf.elf);
  }
  if (!compressed) return fd;
  const std::string path = dir + "/" + hexBytes(id) + ".debug";
  const int copy = makeCopy(fd, dir, path);
  if (copy < 0) return fd;
  char* name = ::strdup(path.c_str());
  if (!name) {
    ::close(copy);
    return fd;
  }
  ::close(fd);
  std::free(*found);
  *found = name;
  return copy;
}

// The search of findDebuginfo(); `copies`: whether a compressed file found is copied into the
// cache (an existing copy is taken either way).
int find(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
         const char* fileName, const char* debuglink, GElf_Word crc, char** found, bool copies) {
  try {
    const unsigned char* bits = nullptr;
    GElf_Addr where = 0;
    const int idLen = dwfl_module_build_id(mod, &bits, &where);
    const std::string id =
        idLen > 1 ? std::string(reinterpret_cast<const char*>(bits), static_cast<size_t>(idLen))
                  : std::string();
    const std::string dir = id.empty() ? std::string() : cacheDir();
    if (!dir.empty() && ownDirectory(dir)) {
      const std::string path = dir + "/" + hexBytes(id) + ".debug";
      const int fd = openCopy(path, id);
      if (fd >= 0) {
        if (char* name = ::strdup(path.c_str())) {
          *found = name;
          return fd;
        }
        ::close(fd);
      }
    }
    const char* urls = std::getenv("DEBUGINFOD_URLS");
    if ((urls && *urls) || localDebugCandidate(mod, fileName, debuglink)) {
      const int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, fileName, debuglink,
                                                  crc, found);
      if (fd < 0 || dir.empty() || !copies) return fd;
      try {
        return throughCache(fd, dir, id, found);
      } catch (...) {  // the file found, as it is
        return fd;
      }
    }
  } catch (...) {  // no exception crosses libdwfl (a std::bad_alloc): as if nothing was found
  }
  errno = 0;  // nothing found, and no error
  return -1;
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
// A file found is then taken through the cache of decompressed copies (above), by the
// module's build id: a copy made earlier is used without searching.
int findDebuginfo(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                  const char* fileName, const char* debuglink, GElf_Word crc, char** found) {
  return find(mod, userdata, modname, base, fileName, debuglink, crc, found, true);
}

int findDebuginfoAsIs(Dwfl_Module* mod, void** userdata, const char* modname, GElf_Addr base,
                      const char* fileName, const char* debuglink, GElf_Word crc, char** found) {
  return find(mod, userdata, modname, base, fileName, debuglink, crc, found, false);
}

}  // namespace profpack
