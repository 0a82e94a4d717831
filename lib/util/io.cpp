#include "util/io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>

#include "error.h"

namespace profpack {

namespace {
[[noreturn]] void ioError(const std::string& what, const std::string& path, int err) {
  throw Error(Status::io, "", what + " '" + path + "': " + std::strerror(err));
}

void readAll(int fd, std::vector<uint8_t>& out, const std::string& path,
             const std::function<void(std::span<const uint8_t>)>& start) {
  uint8_t buf[1 << 16];
  bool started = !start;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      ioError("cannot read", path, errno);
    }
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
    if (!started && out.size() >= InputFile::kStreamStart) {
      started = true;
      start(std::span<const uint8_t>(out.data(), InputFile::kStreamStart));
    }
  }
  if (!started) start(std::span<const uint8_t>(out.data(), out.size()));
}

void writeAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ioError("cannot write", path, errno);
    }
    if (n == 0) ioError("cannot write", path, EIO);  // no progress: not to be retried forever
    data.remove_prefix(static_cast<size_t>(n));
  }
}
}  // namespace

InputFile::InputFile(const std::string& path,
                     const std::function<void(std::span<const uint8_t>)>& start) {
  if (path == "-") {
    readAll(0, buffer_, "<stdin>", start);
    data_ = buffer_.data();
    size_ = buffer_.size();
    return;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) ioError("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    ioError("cannot stat", path, e);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(Status::io, "", "'" + path + "' is a directory, not a profile");
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    void* m = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      ::madvise(m, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
      map_ = m;
      data_ = static_cast<const uint8_t*>(m);
      size_ = static_cast<size_t>(st.st_size);
      ::close(fd);
      return;
    }
  }
  try {
    readAll(fd, buffer_, path, start);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  data_ = buffer_.data();
  size_ = buffer_.size();
}

InputFile::~InputFile() {
  if (map_) ::munmap(map_, size_);
}

AtomicFile::AtomicFile(const std::string& path, mode_t mode) : path_(path) {
  if (path == "-") {
    fd_ = 1;
    return;
  }
  // Said before anything is written (the rename at the end failed on these, after the whole
  // output had been made).
  if (path.empty()) throw Error(Status::invalidArgument, "", "the output path is empty");
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) ioError("cannot write to", path, EISDIR);
  if (exists && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode) ||
                 S_ISSOCK(st.st_mode))) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) ioError("cannot open", path, errno);
    direct_ = true;
    return;
  }
  // A file replaced keeps its permissions (a 0600 file stayed private only until rewritten).
  const mode_t keep = exists && S_ISREG(st.st_mode) ? (st.st_mode & 07777) : 0;
#ifdef O_TMPFILE
  // A file with no name until commit() links it: a process killed while writing (Ctrl-C, kill
  // -9) leaves nothing behind, where a named temporary file stayed. The kernel applies the
  // umask to `mode` as O_CREAT does. Not every file system offers it; then a named one.
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  // commit() must be able to name it: tried first on a file of the same kind (a file named
  // once cannot be named again), so that a failure (no /proc, say) falls back to a named file
  // here rather than after the output was made.
  fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ >= 0) {
    const bool linkable = openNamed(0, true) >= 0 && ::unlink(tmp_.c_str()) == 0;
    ::close(fd_);
    fd_ = linkable ? ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, mode) : -1;
    if (fd_ >= 0) {
      unnamed_ = true;
      if (keep) (void)::fchmod(fd_, keep);
      return;
    }
  }
#endif
  fd_ = openNamed(mode);
  if (keep) (void)::fchmod(fd_, keep);
}

// A name of our own rather than mkstemp's: O_CREAT with mode 0666 lets the kernel apply the
// umask, where mkstemp's 0600 would need the umask read (and so changed) to fix the mode, which
// races with other threads. Unique by process id and a per-process serial number, with the clock
// in case a process id is reused while an old temporary file remains; O_EXCL catches any clash
// (no random device: a sandbox may not offer one), and with it a symbolic link planted under the
// name (O_NOFOLLOW says so too). Open for reading as well, for a caller that edits the file
// through fd() (libelf's ELF_C_RDWR reads it). `link`: instead of creating a file, give the
// unnamed one open as fd_ the name (-1, with errno, where it cannot).
int AtomicFile::openNamed(mode_t mode, bool link) {
  constexpr size_t kNameMax = NAME_MAX;
  static std::atomic<uint64_t> serial{0};
  const auto now =
      static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
  for (int attempt = 0;; ++attempt) {
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".%d-%llu-%llx.tmp", static_cast<int>(::getpid()),
                  static_cast<unsigned long long>(serial.fetch_add(1)), now & 0xffffffffull);
    // Beside the output, under its name cut short where the suffix would take the name past
    // what a directory entry holds (an output name of 250 bytes was refused for its
    // temporary file's).
    const size_t base = path_.rfind('/') + 1;  // npos + 1 == 0
    const size_t room = kNameMax - std::min(kNameMax, std::strlen(suffix));
    tmp_ = path_.substr(0, base + std::min(path_.size() - base, room)) + suffix;
    if (link) {
      // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd does not.
      if (::linkat(fd_, "", AT_FDCWD, tmp_.c_str(), AT_EMPTY_PATH) == 0) return fd_;
      if (errno == EEXIST && attempt < 100) continue;
      const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, tmp_.c_str(), AT_SYMLINK_FOLLOW) == 0)
        return fd_;
      if (errno == EEXIST && attempt < 100) continue;
      return -1;
    }
    const int fd = ::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd >= 0) return fd;
    if (errno != EEXIST || attempt == 100)
      ioError("cannot create a temporary file next to", path_, errno);
  }
}

AtomicFile::~AtomicFile() {
  if (path_ == "-" || fd_ < 0) return;
  ::close(fd_);
  if (!direct_ && !unnamed_) ::unlink(tmp_.c_str());
}

void AtomicFile::write(std::string_view data) {
  if (fd_ < 0) throw Error(Status::io, "", "write to '" + path_ + "' after it was committed");
  writeAll(fd_, data, path_ == "-" ? std::string("<stdout>") : direct_ ? path_ : tmp_);
  written_ += data.size();
#ifdef SYNC_FILE_RANGE_WRITE
  // Start the disk writes of each 8 MiB as it is complete, without waiting for them, so that
  // commit()'s fsync waits for the last piece rather than the whole file. Only a hint: an
  // error here (a file system without it) leaves the work to fsync.
  constexpr uint64_t kStep = uint64_t{8} << 20;
  if (path_ != "-" && !direct_ && written_ - started_ >= kStep) {
    const uint64_t to = written_ / kStep * kStep;
    (void)::sync_file_range(fd_, static_cast<off_t>(started_), static_cast<off_t>(to - started_),
                            SYNC_FILE_RANGE_WRITE);
    started_ = to;
  }
#endif
}

void AtomicFile::commit() {
  if (path_ == "-" || fd_ < 0) return;
  if (direct_) {  // nothing to flush or rename: a device or pipe takes the bytes as written
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) ioError("cannot close", path_, errno);
    return;
  }
  if (::fsync(fd_) != 0) ioError("cannot flush", unnamed_ ? path_ : tmp_, errno);
  if (unnamed_ && openNamed(0, true) < 0) ioError("cannot name the output", path_, errno);
  unnamed_ = false;  // named now: tmp_ is removed if what follows fails
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    ::unlink(tmp_.c_str());
    ioError("cannot close", tmp_, errno);
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp_.c_str());
    ioError("cannot rename the output to", path_, e);
  }
}

void writeFileAtomic(const std::string& path, std::string_view data) {
  AtomicFile f(path);
  f.write(data);
  f.commit();
}

}  // namespace profpack
