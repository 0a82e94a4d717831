// A JSON text writer for the CLI's --json output (docs/cli.md): one document per command,
// written to a string and printed at the end, so a failure midway prints no partial document.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

class Json {
 public:
  Json& object() { return open('{'); }
  Json& array() { return open('['); }
  Json& end() {
    out_ += open_.back() ? '}' : ']';
    open_.pop_back();
    first_.pop_back();
    return *this;
  }
  Json& key(std::string_view k) {
    separate();
    quote(k);
    out_ += ':';
    afterKey_ = true;
    return *this;
  }
  Json& str(std::string_view v) {
    separate();
    quote(v);
    return *this;
  }
  // An integer already formatted as decimal digits with an optional minus sign.
  Json& integer(const std::string& digits) {
    separate();
    out_ += digits;
    return *this;
  }
  Json& integer(uint64_t v) { return integer(std::to_string(v)); }
  Json& number(double v) {
    separate();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    // NaN and infinities are not JSON; the API never returns them, but never print them.
    out_ += v == v && v - v == 0 ? buf : "null";
    return *this;
  }
  Json& boolean(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  Json& null() {
    separate();
    out_ += "null";
    return *this;
  }
  const std::string& text() const { return out_; }

 private:
  Json& open(char c) {
    separate();
    out_ += c;
    open_.push_back(c == '{');
    first_.push_back(true);
    return *this;
  }
  void separate() {
    if (afterKey_) {
      afterKey_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  // A JSON string: quotes, backslashes and control characters escaped; bytes that are not
  // UTF-8 (profiles record names as bytes) become U+FFFD.
  void quote(std::string_view s) {
    out_ += '"';
    for (size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
        ++i;
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
        ++i;
      } else if (c < 0x80) {
        out_ += static_cast<char>(c);
        ++i;
      } else {
        const size_t n = utf8Length(s, i);
        if (n == 0) {
          out_ += "\xEF\xBF\xBD";
          ++i;
        } else {
          out_.append(s.substr(i, n));
          i += n;
        }
      }
    }
    out_ += '"';
  }
  // The length of the well-formed UTF-8 sequence at s[i] (a lead byte >= 0x80), or 0.
  static size_t utf8Length(std::string_view s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return 0;
    }
    if (s.size() - i < n || b(1) < lo || b(1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
      if (b(k) < 0x80 || b(k) > 0xBF) return 0;
    return n;
  }

  std::string out_;
  std::vector<bool> open_;   // per open container: true for an object
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool afterKey_ = false;
};

}  // namespace cli
