// The .ppka archive reader (lib/archive/): the manifest, the commit search, dictionaries and
// every member, through the C API. The archive is read from a file, so each input is one.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "profpack/profpack.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  int fd = memfd_create("fuzz.ppka", 0);
  if (fd < 0) return 0;
  if (write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  profpack_archive* a = nullptr;
  if (profpack_archive_open(path.c_str(), nullptr, &a) == PROFPACK_OK) {
    size_t n = 0, checked = 0;
    profpack_archive_count(a, &n);
    for (size_t i = 0; i < n; ++i) {
      profpack_archive_member m{};
      m.struct_size = sizeof m;
      profpack_archive_member_info(a, i, &m);
      for (size_t l = 0; l < m.label_count; ++l) {
        const char *k = nullptr, *v = nullptr;
        profpack_archive_member_label(a, i, l, &k, &v);
      }
    }
    profpack_archive_verify(a, &checked);
    profpack_archive_close(a);
  }
  close(fd);
  return 0;
}
