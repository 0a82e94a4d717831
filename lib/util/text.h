// Line-oriented scanning and number parsing shared by the text formats.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace profpack {

// Walks the lines of a text buffer, tracking 1-based line numbers and byte offsets.
// A trailing '\r' (CRLF files) is stripped from each line.
class LineCursor {
 public:
  explicit LineCursor(std::span<const uint8_t> data)
      : text_(reinterpret_cast<const char*>(data.data()), data.size()) {}
  explicit LineCursor(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    lineStart_ = pos_;
    ++lineNo_;
    const char* b = text_.data() + pos_;
    const void* nl = memchr_(b, text_.size() - pos_);
    size_t len = nl ? static_cast<size_t>(static_cast<const char*>(nl) - b) : text_.size() - pos_;
    pos_ += len + (nl ? 1 : 0);
    if (len > 0 && b[len - 1] == '\r') --len;
    line = std::string_view(b, len);
    return true;
  }
  uint64_t lineNumber() const { return lineNo_; }
  uint64_t lineOffset() const { return lineStart_; }
  uint64_t nextOffset() const { return pos_; }  // where the next line starts
  bool atEnd() const { return pos_ >= text_.size(); }

 private:
  static const void* memchr_(const char* p, size_t n);
  std::string_view text_;
  size_t pos_ = 0;
  size_t lineStart_ = 0;
  uint64_t lineNo_ = 0;
};

inline bool isSpace(char c) { return c == ' ' || c == '\t'; }

// The value of a hex digit (either case), or 16 for any other character.
inline unsigned hexDigitValue(char ch) {
  const unsigned c = static_cast<unsigned char>(ch);
  if (c - '0' < 10) return c - '0';
  if ((c | 0x20) - 'a' < 6) return (c | 0x20) - 'a' + 10;
  return 16;
}

// `path` with its "." components, repeated slashes and "dir/.." pairs removed: one file as the
// compiler spelled it differently per unit ("/src/a/../hdr.h", "/src/./hdr.h": "/src/hdr.h").
// Lexical only, as gdb and editors compare source paths; ".." at the start of a relative path
// stays, "/.." is "/".
std::string lexicalPath(std::string_view path);

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Splits a "key: value" header line: the key is the text before the first ':' (non-empty, no
// blanks or '='), the value what follows with leading blanks removed.
bool splitKey(std::string_view line, std::string_view& key, std::string_view& value);

// The blank-separated words of s.
std::vector<std::string_view> words(std::string_view s);

enum class NumResult { ok, notNumber, overflow };

// Parses an unsigned decimal or 0x-hexadecimal number at s[pos], advancing pos past it.
NumResult parseNumber(std::string_view s, size_t& pos, uint64_t& out);

// Text profiles never contain NUL bytes (IR header lines are Cap'n Proto Text, which cannot
// hold one): throws a malformed-input error of `format` naming the line and offset of the
// first NUL, if any.
void rejectNul(std::span<const uint8_t> data, const char* format);
// The same for the bytes [from, to) of `data` (a reader that checks a window ahead of where it
// parses, so that the input's pages are touched only once); offsets and lines are of `data`.
void rejectNul(std::span<const uint8_t> data, size_t from, size_t to, const char* format);

// Ends the line just appended to `out`. Readers strip one '\r' before '\n' (CRLF files), so a
// line whose content ends in '\r' (a name can) is terminated with "\r\n" to read back intact.
inline void endLine(std::string& out) {
  if (!out.empty() && out.back() == '\r') out += '\r';
  out += '\n';
}

// Appends the decimal digits of v.
void appendDecimal(std::string& out, uint64_t v);
// A cost: `v` as is, or where costs are signed (a difference of profiles) as the
// two's-complement int64 it holds ("-12").
void appendCost(std::string& out, uint64_t v, bool isSigned);
void appendHex(std::string& out, uint64_t v);  // with "0x" prefix
std::string hexString(uint64_t v);             // the same as a string
std::string hexDigits(uint64_t v);             // lowercase hex digits, no prefix
std::string hexBytes(std::string_view bytes);  // two lowercase hex digits per byte
// `s` with its line breaks (CR, LF) as blanks: for a name a line of a text format holds to its
// end (Callgrind's fn=, Cachegrind's fl=), where any text (a trace event's name) could end the
// line and make the rest a line of its own.
inline std::string withoutLineBreaks(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
// The same appended to `out`, without a string of its own.
inline void appendWithoutLineBreaks(std::string& out, std::string_view s) {
  const size_t at = out.size();
  out += s;
  for (size_t i = at; i < out.size(); ++i)
    if (out[i] == '\n' || out[i] == '\r') out[i] = ' ';
}
// A C++ symbol name demangled (as c++filt prints it); any other name unchanged.
std::string demangle(const char* name);

// A demangled C++ function's name without its return type, parameters, qualifiers and clone
// suffixes, as a demangler asked for no parameters prints it (`c++filt -p`, and perf):
// "void ns::f<int>(int) const [clone .cold]" is "ns::f<int>". Special names (thunks,
// "transaction clone for", vtables, guard variables) and names that are not a function's
// (no parameter list) are kept whole, as that demangler keeps them.
std::string withoutParameters(std::string_view demangled);

// demangle() once per string, by its address: for names in a file's mapped symbol table or
// DWARF, which outlive the cache. Demangling a C++ name takes thousands of instructions, and a
// function's addresses are looked up one by one (7,722 calls were 29 M of 468 M instructions
// naming a g++ compile from symbol tables).
class DemangleCache {
 public:
  // `parameters` false: C++ functions named withoutParameters().
  explicit DemangleCache(bool parameters = true) : parameters_(parameters) {}
  const std::string& operator()(const char* name) {
    auto [it, fresh] = names_.try_emplace(name);
    if (fresh) {
      it->second = demangle(name);
      if (!parameters_ && it->second != name) it->second = withoutParameters(it->second);
    }
    return it->second;
  }

 private:
  bool parameters_;
  std::unordered_map<const char*, std::string> names_;
};

}  // namespace profpack
