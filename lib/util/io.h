// File input (mapped where possible) and atomic file output.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace profpack {

// The bytes of a file: memory-mapped for regular files, read into memory for pipes and "-".
class InputFile {
 public:
  // A stream's first bytes, handed to InputFile's `start` before the rest is read.
  static constexpr size_t kStreamStart = size_t{4} << 20;
  // "-" reads standard input. An input that is not mapped (standard input, a pipe, a device)
  // is read whole into memory; `start`, if given, sees its first kStreamStart bytes (or all
  // of a shorter one) before more is read, and may throw to refuse it there (an endless
  // /dev/zero is otherwise read until memory runs out).
  explicit InputFile(const std::string& path,
                     const std::function<void(std::span<const uint8_t>)>& start = {});
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // True if bytes() is a read-only private mapping of the file (not a copy in memory).
  bool mapped() const { return map_ != nullptr; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
  std::vector<uint8_t> buffer_;
};

// Where a writer's output goes, a piece at a time (so that a large output need not sit in
// memory whole).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(std::string_view data) = 0;
  // A whole output made in one piece: a sink that collects may take it without a copy.
  virtual void write(std::string&& data) { write(std::string_view(data)); }
};

// A writer's text buffer: hands `buffer` to `sink` once it holds about 1 MiB, so that a
// streamed output costs that much memory, not its size.
inline void flushIfFull(std::string& buffer, Sink& sink) {
  if (buffer.size() >= (size_t{1} << 20)) {
    sink.write(buffer);
    buffer.clear();
  }
}

// Collects the pieces in a string.
class StringSink : public Sink {
 public:
  void write(std::string_view data) override { out.append(data); }
  void write(std::string&& data) override {
    if (out.empty())
      out = std::move(data);
    else
      out.append(data);
  }
  std::string out;
};

// A file written atomically: the pieces go to a temporary file in the same directory, which
// commit() flushes to disk and renames over `path`, so a crash or an error never leaves a
// partial file under the target name. Destroyed without commit(), it removes the temporary
// file. "-" writes to standard output as the pieces come (a caller that must not emit part of
// an output on error collects it first, as profpack_write_file does). The temporary file is
// created with `mode` less the umask, with no name (O_TMPFILE, where the file system offers
// it: a process killed while writing leaves nothing) until commit() links it as `path` +
// ".PID-N-HEX.tmp" and renames that over `path`; elsewhere it has that name from the start.
// Where `path`
// is no regular file but a device, a FIFO or a socket (/dev/null, a named pipe), the pieces are
// written to it as they come: renamed over, it would be replaced by a regular file.
class AtomicFile : public Sink {
 public:
  explicit AtomicFile(const std::string& path, mode_t mode = 0666);
  ~AtomicFile() override;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(std::string_view data) override;
  void commit();
  // The temporary file, open for reading and writing (-1 once committed; 1 for "-"): for a
  // caller that changes what it wrote in place before commit(). write() keeps no buffer.
  int fd() const { return fd_; }

 private:
  int openNamed(mode_t mode, bool link = false);
  std::string path_, tmp_;
  int fd_ = -1;
  bool direct_ = false;                 // written straight to `path`, a device, FIFO or socket
  bool unnamed_ = false;                // fd_ is an O_TMPFILE file, named only by commit()
  uint64_t written_ = 0, started_ = 0;  // bytes written; of those, sent to the disk
};

// AtomicFile of one piece.
void writeFileAtomic(const std::string& path, std::string_view data);

}  // namespace profpack
