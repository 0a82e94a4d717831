// A streaming JSON reader over bytes in memory: the caller walks the document (objects,
// arrays, members, elements) and reads the values it wants, skipping the rest; nothing is
// built but the strings it asks for. For JSON profiles of hundreds of megabytes (Chrome traces),
// which a document tree would hold several times over. RFC 8259, with a leading UTF-8 BOM
// allowed. Errors are Status::malformed of the caller's format with the byte offset and line;
// input that ends early throws JsonTruncated, so a reader can keep what was complete.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"

namespace profpack {

// The input ended inside a value.
struct JsonTruncated : Error {
  JsonTruncated(const char* format, uint64_t offset, uint64_t line)
      : Error(Status::malformed, format, "the JSON ends early, inside a value", offset, line) {}
};

// A number as written: value = (negative ? -1 : 1) * digits * 10^exponent (digits holds at most
// 19 significant digits; further ones are dropped and counted in the exponent).
struct JsonNumber {
  bool negative = false;
  uint64_t digits = 0;
  int64_t exponent = 0;
  // The value times 10^decimals, rounded half away from zero; false if it does not fit int64.
  bool scaled(int decimals, int64_t& out) const;
};

// Whether `text` is exactly one JSON number (as some writers put times and ids in strings:
// "12.5"), and if so its value in `out`.
bool jsonNumberText(std::string_view text, JsonNumber& out);

class JsonReader {
 public:
  JsonReader(std::span<const uint8_t> data, const char* format);

  // The next significant character (after blanks), or 0 at the end of the input.
  char peek();
  uint64_t offset() const { return pos_; }
  // Fails unless only blanks are left.
  void expectEnd();

  // Walking: beginObject() consumes '{'; then member(key) is true for each member (the key in
  // `key`, valid until the next call that reads a string), having consumed the ':', and false
  // at the closing '}'; the member's value must be read or skipped before the next member().
  // beginArray()/element() the same for arrays.
  void beginObject();
  bool member(std::string_view& key);
  void beginArray();
  bool element();

  // Values. Each fails (with what it expected) on a value of another kind.
  std::string_view string();  // valid until the next string read
  JsonNumber number();
  // An integer (no fraction or exponent beyond one) in int64.
  int64_t integer();
  bool isNull();  // true (and consumed) if the next value is null
  void skip();    // any value, nested to any depth, without recursion

  // A malformed-input error at `offset` (the line is counted here).
  [[noreturn]] void fail(uint64_t offset, const std::string& message) const;
  [[noreturn]] void failHere(const std::string& message) { fail(pos_, message); }

 private:
  [[noreturn]] void truncated() const;
  void literal(std::string_view word);
  void stringInto(std::string& out, bool keep);
  std::string found() const;  // a short quote of what stands at pos_

  const char* p_;
  size_t size_, pos_ = 0;
  const char* format_;
  std::string scratch_;
  // Per open object or array: whether an element was read (the next needs a ',').
  std::vector<uint8_t> open_;
};

}  // namespace profpack
