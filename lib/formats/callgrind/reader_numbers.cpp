// The Callgrind reader's checked parsing of numbers, subpositions and costs: every form the
// format allows, with an error naming what is wrong (reader.cpp's fast paths take the common
// forms and leave the rest to these).

#include "formats/callgrind/reader.h"

namespace profpack::callgrind::reading {

const char* Reader::number(const char* p, const char* e, uint64_t& out, const char* what) const {
  const char* b = p;
  uint64_t v = 0;
  if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    p += 2;
    const char* d = p;
    for (; p < e; ++p) {
      const unsigned x = hexDigitValue(*p);
      if (x > 15) break;
      if (v >> 60) error(b, std::string(what) + " does not fit in 64 bits: " + firstWord(b, e));
      v = v << 4 | x;
    }
    if (p == d) error(b, std::string("expected ") + what + " (a number), found " + firstWord(b, e));
  } else {
    for (; p < e && isDigit(*p); ++p) {
      uint64_t d = static_cast<uint64_t>(*p - '0');
      if (v > (~uint64_t{0} - d) / 10)
        error(b, std::string(what) + " does not fit in 64 bits: " + firstWord(b, e));
      v = v * 10 + d;
    }
    if (p == b) error(b, std::string("expected ") + what + " (a number), found " + firstWord(b, e));
  }
  if (p < e && !isSpace(*p))
    error(b, std::string("expected ") + what + " (a number), found " + firstWord(b, e));
  out = v;
  return p;
}

const char* Reader::positions(const char* p, const char* e, const uint64_t* base, uint64_t* out,
                              const char* what) const {
  const size_t n = kinds_.size();
  for (size_t k = 0; k < n; ++k) {
    while (p < e && isSpace(*p)) ++p;
    if (p == e)
      error(p, std::string("expected ") + std::to_string(n) + " subpositions (positions:) in " +
                   what + ", found " + std::to_string(k));
    const char c = *p;
    // Fast path: short decimal numbers, absolute or relative, followed by a blank or the end.
    {
      const char* q = p + (c == '+' || c == '-');
      const char* b = q;
      uint64_t v = 0;
      while (q < e && isDigit(*q) && q - b < 18) v = v * 10 + static_cast<uint64_t>(*q++ - '0');
      if (q > b && (q == e || isSpace(*q)) && !(q - b > 1 && *b == '0' && b[1] == 'x')) {
        if (c == '+') {
          out[k] = base[k] + v;
          if (out[k] < v) error(p, "relative subposition overflows 64 bits");
        } else if (c == '-') {
          if (v > base[k])
            error(p, "relative subposition " + std::string(p, static_cast<size_t>(q - p)) +
                         " goes below 0 (previous value " + std::to_string(base[k]) +
                         "): a negative position");
          out[k] = base[k] - v;
        } else {
          out[k] = v;
        }
        p = q;
        continue;
      }
    }
    // Fast path: absolute hex (instruction addresses) of at most 15 digits, which cannot overflow.
    if (c == '0' && e - p > 2 && (p[1] == 'x' || p[1] == 'X')) {
      const char* q = p + 2;
      uint64_t v = 0;
      for (; q < e && q - p < 17; ++q) {
        const unsigned x = hexDigitValue(*q);
        if (x > 15) break;
        v = v << 4 | x;
      }
      if (q > p + 2 && (q == e || isSpace(*q))) {
        out[k] = v;
        p = q;
        continue;
      }
    }
    if (c == '*') {
      out[k] = base[k];
      ++p;
      if (p < e && !isSpace(*p))
        error(p - 1,
              std::string("expected a subposition in ") + what + ", found " + firstWord(p - 1, e));
    } else if (c == '+' || c == '-') {
      uint64_t d;
      const char* at = p;
      p = number(p + 1, e, d, "a relative subposition");
      if (c == '+') {
        if (base[k] + d < d) error(at, "relative subposition overflows 64 bits");
        out[k] = base[k] + d;
      } else {
        if (d > base[k])
          error(at, "relative subposition " + std::string(at, static_cast<size_t>(p - at)) +
                        " goes below 0 (previous value " + std::to_string(base[k]) +
                        "): a negative position");
        out[k] = base[k] - d;
      }
    } else {
      p = number(p, e, out[k], "a subposition");
    }
  }
  return p;
}

size_t Reader::costs(const char* p, const char* e) {
  const size_t nev = events_.size();
  size_t n = 0;
  for (;;) {
    while (p < e && isSpace(*p)) ++p;
    if (p == e) break;
    if (n == nev)
      error(p, "more costs than the " + std::to_string(nev) + " events declared by events:");
    // A negative cost (a difference of profiles) is kept as its two's complement.
    const bool minus = *p == '-' && e - p > 1 && isDigit(p[1]);
    const char* sign = p;
    p += minus;
    // Fast path: short decimal numbers.
    uint64_t v = 0;
    const char* b = p;
    while (p < e && isDigit(*p) && p - b < 19) v = v * 10 + static_cast<uint64_t>(*p++ - '0');
    if (p == b || (p < e && !isSpace(*p))) p = number(b, e, v, "a cost");
    if (minus) v = negated(sign, e, v);
    costBuf_[n++] = v;
  }
  return n;
}

}  // namespace profpack::callgrind::reading
