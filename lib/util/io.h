// File input (mapped where possible) and atomic file output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace profpack {

// The bytes of a file: memory-mapped for regular files, read into memory for pipes and "-".
class InputFile {
 public:
  explicit InputFile(const std::string& path);  // "-" reads standard input
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

// Writes `data` to `path` atomically: a temporary file in the same directory is written,
// flushed to disk and renamed over `path`, so a crash never leaves a partial file under the
// target name. "-" writes to standard output.
void writeFileAtomic(const std::string& path, std::string_view data);

}  // namespace profpack
