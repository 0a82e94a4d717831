// The one exception type the core throws; the C ABI turns it into a status and a message.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace profpack {

// Mirrors profpack_status in include/profpack/profpack.h.
enum class Status : int {
  ok = 0,
  invalidArgument = 1,
  io = 2,
  malformed = 3,
  unsupported = 4,
  limit = 5,
  noMemory = 6,
  internal = 7,
};

inline constexpr uint64_t kUnknown = ~uint64_t{0};

class Error : public std::runtime_error {
 public:
  Error(Status status, std::string format, std::string message, uint64_t offset = kUnknown,
        uint64_t line = kUnknown)
      : std::runtime_error(compose(format, message, offset, line)),
        status_(status),
        format_(std::move(format)),
        message_(std::move(message)),
        offset_(offset),
        line_(line) {}

  // The same error, its message led by the file whose content it is about ("a.out: cachegrind:
  // line 3: ..."): a program that reads several files can tell which one failed.
  Error inFile(const std::string& file) const {
    Error e(*this);
    static_cast<std::runtime_error&>(e) = std::runtime_error(file + ": " + what());
    return e;
  }

  Status status() const { return status_; }
  const std::string& format() const { return format_; }
  const std::string& message() const { return message_; }  // without format and position
  uint64_t offset() const { return offset_; }
  uint64_t line() const { return line_; }

 private:
  static std::string compose(const std::string& format, const std::string& message, uint64_t offset,
                             uint64_t line) {
    std::string s = format;
    if (line != kUnknown)
      s += (s.empty() ? "" : ": ") + std::string("line ") + std::to_string(line);
    if (offset != kUnknown)
      s += (s.empty() ? "" : (line != kUnknown ? ", " : ": ")) + std::string("byte offset ") +
           std::to_string(offset);
    if (!s.empty()) s += ": ";
    return s + message;
  }
  Status status_;
  std::string format_;
  std::string message_;
  uint64_t offset_;
  uint64_t line_;
};

// A malformed-input error of `format` at a byte offset and/or line.
[[noreturn]] inline void fail(const char* format, uint64_t offset, uint64_t line,
                              const std::string& message) {
  throw Error(Status::malformed, format, message, offset, line);
}

}  // namespace profpack
