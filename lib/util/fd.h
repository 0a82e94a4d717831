// A file descriptor closed with its scope.
#pragma once

#include <unistd.h>

#include <utility>

namespace profpack {

// `fd` is -1 where there is none (an open() that failed is held as it is).
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  // The descriptor, no longer closed here.
  int release() { return std::exchange(fd, -1); }
};

}  // namespace profpack
