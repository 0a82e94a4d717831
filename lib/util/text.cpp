#include "util/text.h"

#include <cxxabi.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

#include "error.h"

namespace profpack {

const void* LineCursor::memchr_(const char* p, size_t n) { return std::memchr(p, '\n', n); }

bool splitKey(std::string_view line, std::string_view& key, std::string_view& value) {
  size_t colon = line.find(':');
  if (colon == line.npos || colon == 0) return false;
  key = line.substr(0, colon);
  for (char c : key)
    if (isSpace(c) || c == '=') return false;
  value = line.substr(colon + 1);
  while (!value.empty() && isSpace(value.front())) value.remove_prefix(1);
  return true;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && isSpace(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !isSpace(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

NumResult parseNumber(std::string_view s, size_t& pos, uint64_t& out) {
  const char* b = s.data() + pos;
  const char* e = s.data() + s.size();
  int base = 10;
  if (e - b > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X')) {
    base = 16;
    b += 2;
  }
  auto [p, ec] = std::from_chars(b, e, out, base);
  if (ec == std::errc::result_out_of_range) return NumResult::overflow;
  if (ec != std::errc() || p == b) return NumResult::notNumber;
  pos = static_cast<size_t>(p - s.data());
  return NumResult::ok;
}

void rejectNul(std::span<const uint8_t> data, const char* format) {
  rejectNul(data, 0, data.size(), format);
}

void rejectNul(std::span<const uint8_t> data, size_t from, size_t to, const char* format) {
  if (from >= to) return;  // (and memchr on an empty span's null pointer is undefined)
  const void* nul = std::memchr(data.data() + from, 0, to - from);
  if (!nul) return;
  size_t off = static_cast<size_t>(static_cast<const uint8_t*>(nul) - data.data());
  uint64_t line = 1 + static_cast<uint64_t>(std::count(data.begin(), data.begin() + off, '\n'));
  fail(format, off, line, "NUL byte in a text profile (expected printable text)");
}

void appendDecimal(std::string& out, uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, p);
}

void appendCost(std::string& out, uint64_t v, bool isSigned) {
  if (isSigned && static_cast<int64_t>(v) < 0) {
    out += '-';
    v = ~v + 1;  // the magnitude, also of INT64_MIN
  }
  appendDecimal(out, v);
}

void appendHex(std::string& out, uint64_t v) {
  // The digits from the last, their number known first: std::to_chars in base 16 took 90
  // instructions for an address (300,000 of them in the Callgrind file of a 50 MB gperftools
  // profile).
  static constexpr char kDigits[] = "0123456789abcdef";
  const size_t digits = v == 0 ? 1 : static_cast<size_t>(std::bit_width(v) + 3) / 4;
  char buf[2 + 16];
  buf[0] = '0';
  buf[1] = 'x';
  for (size_t i = digits; i > 0; --i, v >>= 4) buf[1 + i] = kDigits[v & 15];
  out.append(buf, 2 + digits);
}

std::string hexBytes(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string hexDigits(uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  (void)ec;
  return std::string(buf, p);
}

std::string hexString(uint64_t v) {
  std::string s;
  appendHex(s, v);
  return s;
}

std::string demangle(const char* name) {
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string s(d);
  std::free(d);
  return s;
}

namespace {

// The '(' that the ')' at `close` closes (npos: none).
size_t openingParen(std::string_view s, size_t close) {
  size_t depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

bool isWord(std::string_view t, size_t at, std::string_view w) {
  if (t.substr(at, w.size()) != w) return false;
  const size_t e = at + w.size();
  return e == t.size() || !(std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_');
}

// A declarator in parentheses, "(*f<int>(int))" or "(&A::f())", is a function returning a
// pointer to a function or a reference to an array: `inner` is the declarator's function. False
// where the parenthesis closed at `close` is not one.
bool declarator(std::string_view t, size_t close, std::string_view& inner) {
  const size_t o = openingParen(t, close);
  if (o == std::string_view::npos || (o > 0 && t[o - 1] != ' ')) return false;
  std::string_view d = t.substr(o + 1, close - o - 1);
  size_t member = std::string_view::npos;  // "A<int>::*f(int)": a pointer to a member of A
  long depth = 0;
  for (size_t k = 0; k < d.size() && member == std::string_view::npos; ++k) {
    if (d[k] == '<' || (d[k] == '(' && depth > 0)) {
      ++depth;
    } else if (d[k] == '>' || d[k] == ')') {
      --depth;
    } else if (d[k] == '(') {
      break;  // the function's own parameters
    } else if (depth == 0 && d.substr(k, 3) == "::*") {
      member = k;
    }
  }
  if (!d.empty() && (d[0] == '*' || d[0] == '&')) {
    d.remove_prefix(std::min(d.find_first_not_of("*&"), d.size()));
  } else if (member != std::string_view::npos) {
    d.remove_prefix(member + 3);
  } else {
    return false;
  }
  // The pointer's qualifiers, which GCC prints with no space before the name ("* constf").
  for (;;) {
    if (d.starts_with(" const")) {
      d.remove_prefix(6);
    } else if (d.starts_with(" volatile")) {
      d.remove_prefix(9);
    } else if (d.starts_with(" ")) {
      d.remove_prefix(1);
    } else {
      break;
    }
    d.remove_prefix(std::min(d.find_first_not_of("*&"), d.size()));
  }
  inner = d;
  return true;
}

// A function's name without its return type: from the last space outside () [] {} and,
// outside those, <>; an operator's name read whole (its '<' or '>' opens or closes nothing), as
// is a comparison between parenthesized operands in a template argument ("(0)<(1)"); a space
// before a qualifier not counted.
std::string_view withoutReturnType(std::string_view name) {
  constexpr std::string_view kOperators[] = {
      "()", "[]", "->*", "<<=", ">>=", "<=>", "->", "<<", ">>", "<=", ">=", "==", "!=",
      "&&", "||", "++",  "--",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "<",
      ">",  "=",  "!",   "~",   "+",   "-",   "*",  "/",  "%",  "&",  "|",  "^",  ","};
  size_t cut = std::string_view::npos;
  long parens = 0, angles = 0;
  for (size_t j = 0; j < name.size();) {
    if ((name[j] == '<' || name[j] == '>') && j > 0 && name[j - 1] == ')') {
      size_t k = j;
      while (k < name.size() && (name[k] == '<' || name[k] == '>' || name[k] == '=')) ++k;
      if (k < name.size() && name[k] == '(') {
        j = k;
        continue;
      }
    }
    if (isWord(name, j, "operator") && (j == 0 || name[j - 1] == ':' || name[j - 1] == ' ' ||
                                        name[j - 1] == '<' || name[j - 1] == ',')) {
      j += 8;
      const std::string_view* op = nullptr;
      for (const std::string_view& o : kOperators)
        if (name.substr(j, o.size()) == o) {
          op = &o;
          break;
        }
      if (!op && (parens != 0 || angles != 0)) continue;
      if (!op) break;  // new, delete, a conversion ("operator int"): the rest is the name
      j += op->size();
      if (name.substr(j, 2) == " <") ++j;  // "operator<< <T>"
      continue;
    }
    const char c = name[j];
    if (c == '(' || c == '[' || c == '{') {
      ++parens;
    } else if (c == ')' || c == ']' || c == '}') {
      --parens;
    } else if (parens == 0 && c == '<') {
      ++angles;
    } else if (parens == 0 && c == '>') {
      --angles;
    } else if (c == ' ' && parens == 0 && angles == 0 && !isWord(name, j + 1, "const") &&
               !isWord(name, j + 1, "volatile") && name.substr(j + 1, 1) != "&") {
      cut = j;
    }
    ++j;
  }
  return cut == std::string_view::npos ? name : name.substr(cut + 1);
}

}  // namespace

std::string withoutParameters(std::string_view s) {
  // Written for GCC's demangler's output (__cxa_demangle), checked against `c++filt -p -i`
  // (tests/data/symbolize/demangled-without-parameters.tsv).
  constexpr std::string_view kSpecial[] = {"virtual thunk to ",
                                           "non-virtual thunk to ",
                                           "covariant return thunk to ",
                                           "transaction clone for ",
                                           "non-transaction clone for ",
                                           "construction vtable for ",
                                           "vtable for ",
                                           "typeinfo for ",
                                           "typeinfo name for ",
                                           "guard variable for ",
                                           "reference temporary",
                                           "TLS init function for ",
                                           "TLS wrapper function for ",
                                           "VTT for ",
                                           "hidden alias for "};
  for (std::string_view p : kSpecial)
    if (s.starts_with(p)) return std::string(s);
  // A pass per declarator unwrapped, at most 64 (real code nests two or three; a crafted name
  // may nest thousands, each pass a scan of the name): past those, the name as it is then.
  for (int pass = 0;; ++pass) {
    const std::string_view whole = s;
    if (pass == 64) return std::string(whole);
    constexpr std::string_view kClone = " [clone ";
    while (s.ends_with(']') && s.rfind(kClone) != std::string_view::npos)
      s = s.substr(0, s.rfind(kClone));
    // A function returning a reference or pointer to an array: "int (&f()) [3]".
    while (s.ends_with(']') && s.rfind(" [") != std::string_view::npos)
      s = s.substr(0, s.rfind(" ["));
    // The parameter list: the last ')' (only qualifiers after it) and the '(' it closes.
    const size_t end = s.rfind(')');
    if (end == std::string_view::npos) return std::string(whole);
    for (size_t i = end + 1; i < s.size();) {  // " const", " volatile", " noexcept", " &", " &&"
      const size_t next = std::min(s.find(' ', i + 1), s.size());
      const std::string_view token = s.substr(i, next - i);
      if (token != " const" && token != " volatile" && token != " noexcept" && token != " &" &&
          token != " &&")
        return std::string(whole);  // not a function's parameter list
      i = next;
    }
    std::string_view inner;
    if (declarator(s, end, inner)) {  // "int (&f()) [3]"
      s = inner;
      continue;
    }
    const size_t open = openingParen(s, end);
    if (open == std::string_view::npos || open == 0) return std::string(whole);
    const std::string_view name = s.substr(0, open);
    if (name.ends_with(')') && declarator(name, name.size() - 1, inner)) {
      s = inner;  // "int (*f<int>(int))(int)"
      continue;
    }
    return std::string(withoutReturnType(name));
  }
}

std::string lexicalPath(std::string_view path) {
  const bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string_view> parts;
  size_t kept = 0;  // leading ".." of a relative path
  while (!path.empty()) {
    const size_t slash = path.find('/');
    const std::string_view c = path.substr(0, slash);
    path = slash == path.npos ? std::string_view() : path.substr(slash + 1);
    if (c.empty() || c == ".") continue;
    if (c == "..") {
      if (parts.size() > kept) {
        parts.pop_back();
        continue;
      }
      if (absolute) continue;  // "/.." is "/"
      ++kept;
    }
    parts.push_back(c);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out;
}

}  // namespace profpack
