#include "util/json.h"

#include <algorithm>
#include <cstring>

namespace profpack {

namespace {
constexpr uint8_t kHasElement = 1, kObject = 2;
constexpr uint64_t kPow10[] = {1,
                               10,
                               100,
                               1000,
                               10000,
                               100000,
                               1000000,
                               10000000,
                               100000000,
                               1000000000,
                               10000000000,
                               100000000000,
                               1000000000000,
                               10000000000000,
                               100000000000000,
                               1000000000000000,
                               10000000000000000,
                               100000000000000000,
                               1000000000000000000,
                               10000000000000000000u};
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
void putUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | c >> 6);
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xe0 | c >> 12);
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | c >> 18);
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}
}  // namespace

bool JsonNumber::scaled(int decimals, int64_t& out) const {
  const int64_t k = exponent + decimals;
  uint64_t m = digits;
  if (m == 0) {
    out = 0;
    return true;
  }
  if (k >= 0) {
    if (k > 19 || m > UINT64_MAX / kPow10[k]) return false;
    m *= kPow10[k];
  } else if (k < -19) {
    m = 0;
  } else {
    const uint64_t p = kPow10[-k];
    const uint64_t q = m / p, r = m % p;
    m = q + (r >= p - r ? 1 : 0);  // half away from zero
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (m > limit) return false;
  out = negative ? static_cast<int64_t>(~m + 1) : static_cast<int64_t>(m);
  return true;
}

JsonReader::JsonReader(std::span<const uint8_t> data, const char* format)
    : p_(reinterpret_cast<const char*>(data.data())), size_(data.size()), format_(format) {
  if (size_ >= 3 && std::memcmp(p_, "\xef\xbb\xbf", 3) == 0) pos_ = 3;
}

char JsonReader::peek() {
  while (pos_ < size_ && isBlank(p_[pos_])) ++pos_;
  if (pos_ >= size_) return '\0';
  // '\0' stands for the end of the input: a NUL byte in it (no JSON text holds one; a binary
  // file read as JSON) is an error where it is, not an end that drops the rest.
  if (p_[pos_] == '\0') failHere("a NUL byte, which JSON text never holds");
  return p_[pos_];
}

void JsonReader::fail(uint64_t offset, const std::string& message) const {
  uint64_t line = 1;
  const size_t end = std::min<uint64_t>(offset, size_);
  for (size_t i = 0; i < end; ++i) line += p_[i] == '\n';
  throw Error(Status::malformed, format_, message, offset, line);
}

void JsonReader::truncated() const {
  uint64_t line = 1;
  for (size_t i = 0; i < size_; ++i) line += p_[i] == '\n';
  throw JsonTruncated(format_, size_, line);
}

std::string JsonReader::found() const {
  if (pos_ >= size_) return "the end of the input";
  std::string s = "'";
  for (size_t i = pos_; i < size_ && i < pos_ + 20; ++i) {
    const unsigned char c = static_cast<unsigned char>(p_[i]);
    if (c < 0x20 || c >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 15];
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + (pos_ + 20 < size_ ? "...'" : "'");
}

bool jsonNumberText(std::string_view text, JsonNumber& out) {
  if (text.empty() || text.size() > 64) return false;
  // A number's characters only, so that the reader below sees no blanks and no other value.
  for (char c : text)
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
      return false;
  JsonReader inner({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, "json");
  try {
    out = inner.number();
    inner.expectEnd();
    return true;
  } catch (const Error&) {
    return false;
  }
}

void JsonReader::expectEnd() {
  if (peek() != '\0')
    failHere("expected the end of the input after the JSON value, found " + found());
}

void JsonReader::beginObject() {
  const char c = peek();
  if (c == '\0') truncated();
  if (c != '{') failHere("expected a JSON object ('{'), found " + found());
  ++pos_;
  open_.push_back(kObject);
}

void JsonReader::beginArray() {
  const char c = peek();
  if (c == '\0') truncated();
  if (c != '[') failHere("expected a JSON array ('['), found " + found());
  ++pos_;
  open_.push_back(0);
}

bool JsonReader::member(std::string_view& key) {
  char c = peek();
  if (c == '\0') truncated();
  if (c == '}') {
    ++pos_;
    open_.pop_back();
    return false;
  }
  if (open_.back() & kHasElement) {
    if (c != ',') failHere("expected ',' or '}' after an object member, found " + found());
    ++pos_;
    c = peek();
    if (c == '\0') truncated();
  }
  open_.back() |= kHasElement;
  if (c != '"') failHere("expected a member name (a string), found " + found());
  key = string();
  c = peek();
  if (c == '\0') truncated();
  if (c != ':') failHere("expected ':' after a member name, found " + found());
  ++pos_;
  return true;
}

bool JsonReader::element() {
  char c = peek();
  if (c == '\0') truncated();
  if (c == ']') {
    ++pos_;
    open_.pop_back();
    return false;
  }
  if (open_.back() & kHasElement) {
    if (c != ',') failHere("expected ',' or ']' after an array element, found " + found());
    ++pos_;
    if (peek() == '\0') truncated();
  }
  open_.back() |= kHasElement;
  return true;
}

std::string_view JsonReader::string() {
  const char c = peek();
  if (c == '\0') truncated();
  if (c != '"') failHere("expected a string, found " + found());
  const size_t start = ++pos_;
  // Plain strings (no escape) are returned in place.
  while (pos_ < size_) {
    const unsigned char b = static_cast<unsigned char>(p_[pos_]);
    if (b == '"') return std::string_view(p_ + start, pos_++ - start);
    if (b == '\\') break;
    if (b < 0x20) failHere("a control character inside a string (it must be escaped)");
    ++pos_;
  }
  if (pos_ >= size_) truncated();
  scratch_.assign(p_ + start, pos_ - start);
  stringInto(scratch_, true);
  return scratch_;
}

// The rest of a string from an escape on (pos_ at a backslash), appended to `out`.
void JsonReader::stringInto(std::string& out, bool keep) {
  auto hex4 = [&]() -> uint32_t {
    if (size_ - pos_ < 4) truncated();
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = p_[pos_ + i];
      const uint32_t d = h >= '0' && h <= '9'   ? h - '0'
                         : h >= 'a' && h <= 'f' ? h - 'a' + 10
                         : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                : 16;
      if (d == 16) failHere("expected four hex digits after \\u, found " + found());
      v = v << 4 | d;
    }
    pos_ += 4;
    return v;
  };
  while (pos_ < size_) {
    const unsigned char b = static_cast<unsigned char>(p_[pos_]);
    if (b == '"') {
      ++pos_;
      return;
    }
    if (b < 0x20) failHere("a control character inside a string (it must be escaped)");
    if (b != '\\') {
      if (keep) out += static_cast<char>(b);
      ++pos_;
      continue;
    }
    if (++pos_ >= size_) truncated();
    const char e = p_[pos_++];
    char plain = 0;
    switch (e) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': {
        uint32_t c = hex4();
        if (c >= 0xd800 && c < 0xdc00 && size_ - pos_ >= 6 && p_[pos_] == '\\' &&
            p_[pos_ + 1] == 'u') {
          const size_t back = pos_;
          pos_ += 2;
          const uint32_t low = hex4();
          if (low >= 0xdc00 && low < 0xe000)
            c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
          else
            pos_ = back;
        }
        // A lone surrogate, or NUL (which no name holds), becomes U+FFFD.
        if (c == 0 || (c >= 0xd800 && c < 0xe000)) c = 0xfffd;
        if (keep) putUtf8(out, c);
        continue;
      }
      default: pos_ -= 2; failHere("unknown escape in a string: " + found());
    }
    if (keep) out += plain;
  }
  truncated();
}

JsonNumber JsonReader::number() {
  const char c0 = peek();
  if (c0 == '\0') truncated();
  JsonNumber n;
  const size_t start = pos_;
  auto digit = [&] { return pos_ < size_ && p_[pos_] >= '0' && p_[pos_] <= '9'; };
  auto bad = [&] {
    pos_ = start;
    failHere("expected a number, found " + found());
  };
  if (p_[pos_] == '-') {
    n.negative = true;
    ++pos_;
  }
  if (!digit()) {
    if (pos_ >= size_) truncated();
    bad();
  }
  int significant = 0;
  auto take = [&](bool fraction) {
    const uint64_t d = static_cast<uint64_t>(p_[pos_] - '0');
    if (significant < 19) {
      if (n.digits != 0 || d != 0) ++significant;
      n.digits = n.digits * 10 + d;
      if (fraction) --n.exponent;
    } else if (!fraction) {
      ++n.exponent;
    }
    ++pos_;
  };
  if (p_[pos_] == '0') {
    ++pos_;
  } else {
    while (digit()) take(false);
  }
  if (pos_ < size_ && p_[pos_] == '.') {
    ++pos_;
    if (!digit()) {
      if (pos_ >= size_) truncated();
      bad();
    }
    while (digit()) take(true);
  }
  if (pos_ < size_ && (p_[pos_] == 'e' || p_[pos_] == 'E')) {
    ++pos_;
    bool minus = false;
    if (pos_ < size_ && (p_[pos_] == '+' || p_[pos_] == '-')) minus = p_[pos_++] == '-';
    if (!digit()) {
      if (pos_ >= size_) truncated();
      bad();
    }
    int64_t e = 0;
    while (digit()) {
      if (e < 100000) e = e * 10 + (p_[pos_] - '0');
      ++pos_;
    }
    n.exponent += minus ? -e : e;
  }
  return n;
}

int64_t JsonReader::integer() {
  const size_t at = (peek(), pos_);
  const JsonNumber n = number();
  int64_t v = 0;
  bool whole = true;
  if (n.exponent < 0)
    whole = n.exponent < -19 ? n.digits == 0 : n.digits % kPow10[-n.exponent] == 0;
  if (!whole || !n.scaled(0, v)) {
    pos_ = at;
    failHere("expected an integer of at most 64 bits, found " + found());
  }
  return v;
}

bool JsonReader::isNull() {
  if (peek() != 'n') return false;
  literal("null");
  return true;
}

void JsonReader::literal(std::string_view word) {
  if (size_ - pos_ < word.size()) {
    if (std::string_view(p_ + pos_, size_ - pos_) == word.substr(0, size_ - pos_)) truncated();
    failHere("expected a JSON value, found " + found());
  }
  if (std::string_view(p_ + pos_, word.size()) != word)
    failHere("expected a JSON value, found " + found());
  pos_ += word.size();
}

void JsonReader::skip() {
  const size_t base = open_.size();
  std::string_view key;
  for (;;) {
    const char c = peek();
    bool opened = false;
    switch (c) {
      case '\0': truncated();
      case '{':
        beginObject();
        opened = member(key);
        break;
      case '[':
        beginArray();
        opened = element();
        break;
      case '"': {
        ++pos_;
        // A string's content is not kept: scan to its end.
        const void* q = pos_ < size_ ? std::memchr(p_ + pos_, '"', size_ - pos_) : nullptr;
        const char* bs = q ? static_cast<const char*>(std::memchr(
                                 p_ + pos_, '\\', static_cast<const char*>(q) - (p_ + pos_)))
                           : nullptr;
        if (q && !bs) {
          for (const char* k = p_ + pos_; k < q; ++k)
            if (static_cast<unsigned char>(*k) < 0x20) {
              pos_ = static_cast<size_t>(k - p_);
              failHere("a control character inside a string (it must be escaped)");
            }
          pos_ = static_cast<size_t>(static_cast<const char*>(q) - p_) + 1;
        } else {
          stringInto(scratch_, false);
        }
        break;
      }
      case 't': literal("true"); break;
      case 'f': literal("false"); break;
      case 'n': literal("null"); break;
      default: number();
    }
    if (opened) continue;  // read the first member's or element's value
    // A value is complete: go on with the containers skip() opened.
    for (;;) {
      if (open_.size() == base) return;
      if (open_.back() & kObject ? member(key) : element()) break;
    }
  }
}

}  // namespace profpack
