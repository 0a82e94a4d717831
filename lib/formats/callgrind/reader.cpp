// Callgrind profile format, version 1 (callgrind-format.xml), as valgrind 3.19 writes it.
//
//   file       ::= part+
//   part       ::= header_line* body_line* trailer_line*
//   header     ::= "key: value" (version creator pid cmd part thread desc positions events
//                  event summary ...), comments, blank lines
//   body_line  ::= spec "=" name | cost_line | association
//   spec       ::= ob fl fi fe fn cob cfi cfl cfn jfi jfn
//   name       ::= "(" id ")" " " text | "(" id ")" | text
//   cost_line  ::= subposition+ cost*          subposition ::= num | 0xhex | +num | -num | *
//   association::= ("calls=" count target | "jump=" count target | "jcnd=" jumped "/" executed
//                  target) "\n" cost_line
//   trailer    ::= "totals:" costs | "summary:" costs (after the body)
//
// Semantics (those of callgrind_annotate and KCachegrind, which valgrind's writer relies on):
// - Compressed ids have three id spaces: objects (ob, cob), files (fl fi fe cfi cfl jfi) and
//   functions (fn cfn jfn). Valgrind defines an id with one key and references it with another
//   (e.g. `cfi=(5) x.c` then `fl=(5)`). A redefinition replaces the old name; an empty name means
//   "none" (string 0).
// - fl=, fi= and fe= set the file in effect. fn= fixes the row context (object, file in effect,
//   function). A row's sourceFile is the file in effect when it differs from its context's file.
// - cob= / cfi= apply to the next cfn= only; cfn= resolves the callee (object: cob or the current
//   context's; file: cfi or the file in effect). jfi= / jfn= apply to the next jump only
//   (defaults: the file in effect and the current function).
// - Target subpositions of calls=/jump=/jcnd= are relative to the previous cost line and do not
//   change it; the line after an association is a cost line (for jumps: the source position,
//   usually without costs) and becomes the base of the next relative subposition.
// - Several parts follow one another: a header line (other than totals:/summary:) after a body
//   starts a new part; comments and blank lines just before it belong to the new part's header.
//
// Kept in the IR: every header and trailer line verbatim per part (the file-level lines
// `# callgrind format`, version:, creator: belong to the part they precede, so every part of a
// multi-part file keeps its own), the events with their long names and formulas, and every body
// record as one CostTable row in file order: cost lines (kind cost), calls= (kind call: the call
// site in positions, the callee context in target, its subpositions in targetPositions, the call
// count in count, inclusive costs in costs), jump= and jcnd= (jump / condJump: the source line's
// position and costs, target, count = jump count or executed count, jumped = jumped count).
// Comments and blank lines inside a body, the choice of fl=/fi=/fe=, compressed ids and the
// relative or absolute form of subpositions are not kept: the writer chooses them, so a file
// written back reads to an equal IR.
//
// Speed: cost lines take a one-pass fast path over the mapped bytes (no per-line allocation, no
// hashing); compressed ids index vectors; strings are hashed only on name definitions.

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/common.h"
#include "formats/callgrind/costs.h"
#include "formats/callgrind/text_end.h"
#include "util/pages.h"
#include "util/text.h"

namespace profpack {

using namespace callgrind;

namespace {

// Compressed id -> string index, one per id space. Small ids index a vector; huge ids (which
// valgrind never writes) go to a hash map so an id cannot make us allocate much.
class IdMap {
 public:
  uint64_t get(uint64_t id) const {
    if (id < small_.size() && small_[id]) return small_[id] - 1;
    if (big_.empty()) return kUndef;
    auto it = big_.find(id);
    return it == big_.end() ? kUndef : it->second;
  }
  void set(uint64_t id, uint64_t s) {
    if (id < kSmallLimit && s + 1 < UINT32_MAX) {
      if (id >= small_.size())
        small_.resize(
            std::min<uint64_t>(kSmallLimit, std::max<uint64_t>(id + 1, small_.size() * 2)), 0);
      small_[id] = static_cast<uint32_t>(s + 1);
      if (!big_.empty()) big_.erase(id);
    } else {
      if (id < small_.size()) small_[id] = 0;
      big_[id] = s;
    }
  }

 private:
  static constexpr uint64_t kSmallLimit = uint64_t{1} << 20;
  std::vector<uint32_t> small_;  // string index + 1, 0 = undefined
  std::unordered_map<uint64_t, uint64_t> big_;
};

using Line = HeaderLineText;

struct PartData {
  std::vector<Line> lines;
  std::unique_ptr<CostTableBuilder> table;
};

struct EventSpec {
  std::string name, longName, formula;
  std::vector<std::pair<int64_t, std::string>> terms;
};

struct CostCheck {  // a summary:/totals: line, checked once the events are known
  uint64_t line, offset;
  std::string_view value;
  const char* key;
};

inline bool isDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// "xx=" .. "xxxx=": a position or association line (lower-case letters before '=').
bool isSpecLine(std::string_view line) {
  for (size_t i = 0; i < line.size() && i < 6; ++i) {
    const char c = line[i];
    if (c == '=') return i >= 2;
    if (c < 'a' || c > 'z') return false;
  }
  return false;
}

std::string firstWord(const char* p, const char* e) {
  const char* b = p;
  while (p < e && !isSpace(*p)) ++p;
  if (p == b) return "end of line";
  return "'" + std::string(b, static_cast<size_t>(std::min<ptrdiff_t>(p - b, 40))) + "'";
}

// The fast cost-line paths: applies a '+'/'-' relative subposition `v` to `base` in place
// (any other `c` leaves the absolute `v`). False if it would leave 0..2^64-1, so that the
// checked path reports the error.
inline bool applyRelative(char c, uint64_t base, uint64_t& v) {
  if (c == '+') {
    if (v > ~base) return false;
    v += base;
  } else if (c == '-') {
    if (v > base) return false;
    v = base - v;
  }
  return true;
}

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data)
      : data_(data), cur_{reinterpret_cast<const char*>(data.data())} {}
  std::unique_ptr<Profile> run();

 private:
  [[noreturn]] void error(const char* at, const std::string& message) const {
    fail(kFmt, cur_.lineOffset() + static_cast<uint64_t>(at - line_.data()), cur_.lineNumber(),
         message);
  }
  // Parses an unsigned decimal or 0x-hex number at p; returns the end. Errors name `what`.
  const char* number(const char* p, const char* e, uint64_t& out, const char* what) const;
  // -v as a two's-complement cost (the text at p read "-v"); notes that costs are signed.
  uint64_t negated(const char* p, const char* e, uint64_t v) {
    if (v > uint64_t{1} << 63) error(p, "a negative value below -2^63: " + firstWord(p, e));
    negative_ |= v != 0;  // "-0" is 0, and makes no profile signed
    return ~v + 1;
  }
  const char* positions(const char* p, const char* e, const uint64_t* base, uint64_t* out,
                        const char* what) const;
  size_t costs(const char* p, const char* e);
  const char* fastCostLine(const char* p, const char* end);
  const char* fastPositions(const char* p, uint64_t* pos) const;
  const char* fastCostLineBeforeNewline(const char* p);
  const char* fastSpecLine(const char* p);
  // cfn=: the callee of the next calls= (in the file of a pending cfi=, else the current one).
  void setCallee(uint64_t function) {
    calleeFn_ = function;
    calleeFile_ = cfi_ != kUndef ? cfi_ : file_;
    cfi_ = kUndef;
    haveCallee_ = true;
  }
  void associate(Kind kind);
  const char* commitCostLine(const char* p, const uint64_t* pos, size_t n);
  uint64_t name(std::string_view spec, IdSpace space, std::string_view value);
  void header(std::string_view key, std::string_view value);
  void startPart();
  void body(std::string_view line);
  void needFn(const char* what) {
    if (!haveFn_)
      error(line_.data(), std::string(what) + " before any fn= line (expected fn= first)");
  }
  void needEvents(const char* what) {
    if (!haveEvents_)
      error(line_.data(), std::string(what) +
                              " before the events: line (expected events: in "
                              "the header)");
  }
  // The context of (object, file, function), found through a vector indexed by the function's
  // string index (strings are numbered densely as they are interned): no hashing per record.
  // Only a context seen for the first time goes to contexts_, which numbers it.
  uint64_t contextOf(uint64_t object, uint64_t file, uint64_t function) {
    if (function >= byFunction_.size()) byFunction_.resize(strings_.size() + 1024, 0);
    for (uint32_t i = byFunction_[function]; i != 0; i = slots_[i - 1].next) {
      const Slot& sl = slots_[i - 1];
      if (sl.object == object && sl.file == file) return sl.ctx;
    }
    const uint64_t ctx = contexts_.get(object, file, function);
    slots_.push_back({object, file, ctx, byFunction_[function]});
    byFunction_[function] = static_cast<uint32_t>(slots_.size());
    return ctx;
  }
  uint64_t context() {
    if (!ctxValid_) {
      ctx_ = contextOf(fnObject_, fnFile_, fn_);
      ctxValid_ = true;
    }
    return ctx_;
  }

  std::span<const uint8_t> data_;
  struct Cursor {
    const char* base;
    const char* lineStart = nullptr;
    uint64_t lineNo = 0;
    uint64_t lineNumber() const { return lineNo; }
    uint64_t lineOffset() const { return static_cast<uint64_t>(lineStart - base); }
  } cur_;
  std::string_view line_;

  StringInterner strings_;
  ContextTable contexts_;
  IdMap ids_[3];
  std::vector<PartData> parts_;
  std::vector<Line> pending_;  // comments / blank lines after a body
  bool inBody_ = false;
  std::string version_;
  bool haveVersion_ = false;

  std::vector<std::string> events_;
  bool haveEvents_ = false;
  std::vector<EventSpec> eventSpecs_;
  std::vector<ir::PositionKind> kinds_{ir::PositionKind::LINE};
  bool havePositions_ = false;
  std::vector<CostCheck> checks_;

  // Body state.
  uint64_t object_ = 0, file_ = 0;  // ob= and the file in effect (fl=, fi=, fe=)
  uint64_t fnObject_ = 0, fnFile_ = 0, fn_ = 0;
  bool haveFn_ = false;
  uint64_t ctx_ = 0;
  bool ctxValid_ = false;
  uint64_t cob_ = kUndef, cfi_ = kUndef;  // pending for the next cfn=
  uint64_t calleeFile_ = 0, calleeFn_ = 0;
  bool haveCallee_ = false;
  uint64_t jfi_ = kUndef, jfn_ = kUndef;  // pending for the next jump
  uint64_t last_[kMaxPositions] = {0, 0, 0};
  // An association waiting for its cost line.
  Kind assocKind_ = Kind::COST;
  uint64_t assocLine_ = 0, assocTarget_ = 0, assocCount_ = 0, assocJumped_ = 0;
  uint64_t assocPos_[kMaxPositions] = {0, 0, 0};
  std::vector<uint64_t> costBuf_;
  bool negative_ = false;  // a negative cost or call count was read: costs are signed
  struct Slot {
    uint64_t object, file, ctx;
    uint32_t next;  // 1 + index of the next slot of the same function, 0 = none
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> byFunction_;  // function string index -> 1 + its first slot, 0 = none
};

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

// The common case of a cost line, parsed in one pass up to its newline: short decimal or
// relative subpositions and short decimal costs. Anything else (hex, long numbers, errors, a
// carriage return) returns nullptr before changing any state, and the general path takes over.
const char* Reader::fastCostLine(const char* p, const char* end) {
  const size_t npos = kinds_.size();
  uint64_t pos[kMaxPositions] = {0, 0, 0};
  for (size_t k = 0; k < npos; ++k) {
    const char c = *p;
    if (c == '*') {
      pos[k] = last_[k];
      ++p;
    } else {
      const char* q = p + (c == '+' || c == '-');
      const char* b = q;
      uint64_t v = 0;
      while (q < end && isDigit(*q) && q - b < 18) v = v * 10 + static_cast<uint64_t>(*q++ - '0');
      if (q == b) return nullptr;
      if (!applyRelative(c, last_[k], v)) return nullptr;
      pos[k] = v;
      p = q;
    }
    if (p == end || (*p != ' ' && *p != '\t')) {
      if (k + 1 < npos || (p < end && *p != '\n')) return nullptr;
    } else {
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
      if (k + 1 < npos && (p == end || *p == '\n')) return nullptr;
    }
  }
  const size_t nev = events_.size();
  uint64_t* costs = costBuf_.data();
  size_t n = 0;
  while (p < end && *p != '\n') {
    const char* b = p;
    uint64_t v = 0;
    while (p < end && isDigit(*p) && p - b < 18) v = v * 10 + static_cast<uint64_t>(*p++ - '0');
    if (p == b || n == nev) return nullptr;
    if (p < end && *p != '\n') {
      if (*p != ' ' && *p != '\t') return nullptr;
      while (p < end && (*p == ' ' || *p == '\t')) ++p;
    }
    costs[n++] = v;
  }
  return commitCostLine(p < end ? p + 1 : end, pos, n);
}

// The decimal digits at q (no sign), advanced past them; the count of digits (0: none; > 18: the
// value may have wrapped, so the fast paths leave the line to the checked path). Stops at any
// non-digit, so a line known to end with a newline needs no bounds check.
inline ptrdiff_t decimalDigits(const char*& q, uint64_t& v) {
  const char* b = q;
  uint64_t x = 0;
  for (unsigned d = static_cast<unsigned char>(*q) - '0'; d < 10;
       d = static_cast<unsigned char>(*++q) - '0')
    x = x * 10 + d;
  v = x;
  return q - b;
}

// True if the line at p starts with `prefix`. Compares byte by byte, so it stops at the line's
// newline (which no prefix holds) and never reads past it.
inline bool startsWith(const char* p, const char* prefix) {
  for (; *prefix; ++p, ++prefix)
    if (*p != *prefix) return false;
  return true;
}

// The subpositions of a line known to end with a newline, in the forms valgrind writes: short
// decimal, '+'/'-' relative, '*', and 0x hex of at most 16 digits. Returns the end of the last
// one and the blanks after it, or nullptr (no state changed) for anything else.
const char* Reader::fastPositions(const char* p, uint64_t* pos) const {
  const size_t npos = kinds_.size();
  for (size_t k = 0; k < npos; ++k) {
    const char c = *p;
    if (c == '*') {
      pos[k] = last_[k];
      ++p;
    } else if (c == '0' && p[1] == 'x') {  // p[1] exists: '0' is not the newline
      p += 2;
      const char* b = p;
      uint64_t v = 0;
      for (unsigned x = hexDigitValue(*p); x < 16; x = hexDigitValue(*++p)) v = v << 4 | x;
      if (p == b || p - b > 16) return nullptr;
      pos[k] = v;
    } else {
      p += (c == '+' || c == '-');
      uint64_t v;
      const ptrdiff_t nd = decimalDigits(p, v);
      if (nd == 0 || nd > 18) return nullptr;
      if (!applyRelative(c, last_[k], v)) return nullptr;
      pos[k] = v;
    }
    if (*p != ' ' && *p != '\t') {
      if (k + 1 < npos || *p != '\n') return nullptr;
    } else {
      while (*p == ' ' || *p == '\t') ++p;
      if (k + 1 < npos && *p == '\n') return nullptr;
    }
  }
  return p;
}

// fastCostLine for a line known to end with a newline before the end of the input: every loop
// stops at that newline (neither a digit nor a blank), so no byte needs a bounds check.
const char* Reader::fastCostLineBeforeNewline(const char* p) {
  uint64_t pos[kMaxPositions] = {0, 0, 0};
  p = fastPositions(p, pos);
  if (!p) return nullptr;
  const size_t nev = events_.size();
  uint64_t* costs = costBuf_.data();
  size_t n = 0;
  while (*p != '\n') {
    uint64_t v;
    const ptrdiff_t nd = decimalDigits(p, v);
    if (nd == 0 || nd > 18 || n == nev) return nullptr;
    if (*p != '\n') {
      if (*p != ' ' && *p != '\t') return nullptr;
      while (*p == ' ' || *p == '\t') ++p;
    }
    costs[n++] = v;
  }
  return commitCostLine(p + 1, pos, n);
}

// The common forms of the other frequent body lines, for a line known to end with a newline
// and no association pending: "calls=N pos", "jump=N pos", "jcnd=J/N pos" with fastPositions'
// subpositions, and "cfn=(id)" naming a defined id. Does what body() does for them and returns
// the next line, or nullptr (no state changed) for anything else, which body() then checks.
const char* Reader::fastSpecLine(const char* p) {
  if (startsWith(p, "cfn=(")) {
    const char* q = p + 5;
    uint64_t id;
    const ptrdiff_t nd = decimalDigits(q, id);
    if (nd == 0 || nd > 18 || q[0] != ')' || q[1] != '\n') return nullptr;
    const uint64_t s = ids_[kFunctions].get(id);
    if (s == kUndef) return nullptr;
    if (!pending_.empty()) pending_.clear();
    setCallee(s);
    return q + 2;
  }
  Kind kind;
  if (startsWith(p, "calls=")) {
    if (!haveCallee_) return nullptr;
    kind = Kind::CALL;
    p += 6;
  } else if (startsWith(p, "jcnd=")) {
    kind = Kind::COND_JUMP;
    p += 5;
  } else if (startsWith(p, "jump=")) {
    kind = Kind::JUMP;
    p += 5;
  } else {
    return nullptr;
  }
  while (*p == ' ' || *p == '\t') ++p;
  uint64_t jumped = 0, count;
  if (kind == Kind::COND_JUMP) {
    const ptrdiff_t nd = decimalDigits(p, jumped);
    if (nd == 0 || nd > 18 || *p != '/') return nullptr;
    ++p;
  }
  const ptrdiff_t nd = decimalDigits(p, count);
  if (nd == 0 || nd > 18 || (*p != ' ' && *p != '\t')) return nullptr;
  while (*p == ' ' || *p == '\t') ++p;
  uint64_t pos[kMaxPositions] = {0, 0, 0};
  p = fastPositions(p, pos);
  if (!p || *p != '\n') return nullptr;
  if (!pending_.empty()) pending_.clear();
  assocCount_ = count;
  assocJumped_ = jumped;
  for (size_t k = 0; k < kMaxPositions; ++k) assocPos_[k] = pos[k];
  associate(kind);
  return p + 1;
}

// An association line whose numbers are parsed: its target's context and the pending cob=,
// jfi=, jfn= used up. The row's own context is numbered first: contexts are numbered in the
// order rows use them, and the row comes before its target.
void Reader::associate(Kind kind) {
  const uint64_t own = context();
  if (kind == Kind::CALL) {
    assocTarget_ = contextOf(cob_ != kUndef ? cob_ : fnObject_, calleeFile_, calleeFn_);
    cob_ = kUndef;
  } else {
    const uint64_t tf = jfi_ != kUndef ? jfi_ : file_, tn = jfn_ != kUndef ? jfn_ : fn_;
    // Most jumps stay inside their function: the target is the row's own context.
    assocTarget_ = tf == fnFile_ && tn == fn_ ? own : contextOf(fnObject_, tf, tn);
    jfi_ = jfn_ = kUndef;
  }
  assocKind_ = kind;
  assocLine_ = cur_.lineNumber();
}

// Records a parsed cost line; `next` is the start of the following line.
inline const char* Reader::commitCostLine(const char* next, const uint64_t* pos, size_t n) {
  const uint64_t* costs = costBuf_.data();
  if (!pending_.empty()) pending_.clear();
  // All kMaxPositions (the callers zero the unused ones): a fixed-size copy, not a memcpy call.
  for (size_t k = 0; k < kMaxPositions; ++k) last_[k] = pos[k];
  const uint64_t sf = file_ == fnFile_ ? 0 : file_;
  CostTableBuilder& t = *parts_.back().table;
  if (assocKind_ == Kind::COST) {
    t.cost(context(), sf, pos, costs, n);
  } else {
    t.row(assocKind_, context(), sf, pos, costs, n, assocTarget_, assocPos_, assocCount_,
          assocJumped_);
    assocKind_ = Kind::COST;
  }
  return next;
}

uint64_t Reader::name(std::string_view spec, IdSpace space, std::string_view v) {
  if (v.size() >= 2 && v[0] == '(' && isDigit(v[1])) {
    size_t i = 1;
    uint64_t id = 0;
    for (; i < v.size() && isDigit(v[i]); ++i) {
      if (id > (~uint64_t{0} - 9) / 10)
        error(v.data(), "compressed id in " + std::string(spec) + "= does not fit in 64 bits");
      id = id * 10 + static_cast<uint64_t>(v[i] - '0');
    }
    if (i == v.size() || v[i] != ')')
      error(v.data() + i, "expected ')' after the compressed id in " + std::string(spec) + "=");
    ++i;
    while (i < v.size() && isSpace(v[i])) ++i;
    if (i == v.size()) {
      uint64_t s = ids_[space].get(id);
      if (s == kUndef)
        error(v.data(), "undefined compressed id (" + std::to_string(id) + ") in " +
                            std::string(spec) + "= (expected an earlier definition '(" +
                            std::to_string(id) + ") name')");
      return s;
    }
    uint64_t s = strings_.intern(v.substr(i));
    ids_[space].set(id, s);
    return s;
  }
  return v.empty() ? 0 : strings_.intern(v);
}

void Reader::startPart() {
  if (!parts_.empty()) parts_.back().table->finish();  // ends its worker thread, if any
  parts_.emplace_back();
  parts_.back().table = std::make_unique<CostTableBuilder>(kinds_.size());
  inBody_ = false;
  haveFn_ = false;
  ctxValid_ = false;
  haveCallee_ = false;
  object_ = file_ = 0;
  cob_ = cfi_ = jfi_ = jfn_ = kUndef;
  std::fill(std::begin(last_), std::end(last_), 0);
}

void Reader::header(std::string_view key, std::string_view value) {
  const char* at = value.data();
  if (key == "version") {
    uint64_t v;
    number(at, value.data() + value.size(), v, "the format version");
    if (v >= 2)
      throw Error(Status::unsupported, kFmt,
                  "format version " + std::string(value) + " is not supported (expected 0 or 1)",
                  cur_.lineOffset(), cur_.lineNumber());
    if (!haveVersion_) version_ = std::string(trim(value));
    haveVersion_ = true;
  } else if (key == "positions") {
    if (parts_.back().table->rows() > 0)
      error(line_.data(), "positions: line after cost lines of the same part");
    std::vector<ir::PositionKind> kinds;
    for (std::string_view w : words(value)) {
      ir::PositionKind k;
      if (w == "instr")
        k = ir::PositionKind::INSTR;
      else if (w == "line")
        k = ir::PositionKind::LINE;
      else if (w == "bb")
        k = ir::PositionKind::BB;
      else
        error(w.data(), "unknown subposition '" + std::string(w) +
                            "' in positions: (expected instr, bb or line)");
      if (std::find(kinds.begin(), kinds.end(), k) != kinds.end())
        error(w.data(), "subposition '" + std::string(w) + "' given twice in positions:");
      kinds.push_back(k);
    }
    if (kinds.empty()) error(at, "positions: line names no subposition (expected instr, bb, line)");
    if (havePositions_ && kinds != kinds_)
      error(at, "positions: differs from an earlier part's; profpack keeps one per profile");
    if (!havePositions_ && parts_.size() > 1 && kinds != kinds_)
      error(at, "positions: differs from an earlier part's (default 'line')");
    havePositions_ = true;
    kinds_ = kinds;
    parts_.back().table = std::make_unique<CostTableBuilder>(kinds_.size());
  } else if (key == "events") {
    std::vector<std::string> ev;
    for (std::string_view w : words(value)) ev.emplace_back(w);
    if (ev.empty()) error(at, "events: line names no events");
    if (haveEvents_ && ev != events_)
      error(at, "events: differs from an earlier part's; profpack keeps one list per profile");
    events_ = std::move(ev);
    haveEvents_ = true;
    costBuf_.assign(events_.size(), 0);
  } else if (key == "event") {
    // event: Name [= formula] [: long name]
    EventSpec spec;
    size_t i = 0;
    while (i < value.size() && !isSpace(value[i]) && value[i] != '=' && value[i] != ':') ++i;
    spec.name = std::string(value.substr(0, i));
    if (spec.name.empty()) error(at, "expected an event name after event:");
    std::string_view rest = trim(value.substr(i));
    if (!rest.empty() && rest[0] == '=') {
      size_t colon = rest.find(':');
      std::string_view f = trim(rest.substr(1, colon == rest.npos ? rest.npos : colon - 1));
      spec.formula = std::string(f);
      rest = colon == rest.npos ? std::string_view() : rest.substr(colon);
      size_t pos = 0;
      while (pos <= f.size()) {
        size_t plus = f.find('+', pos);
        std::string_view t = trim(f.substr(pos, plus == f.npos ? f.npos : plus - pos));
        int64_t factor = 1;
        size_t j = 0;
        if (!t.empty() && isDigit(t[0])) {
          uint64_t v = 0;
          while (j < t.size() && isDigit(t[j])) {
            if (v > (uint64_t{1} << 62) / 10) error(t.data(), "factor in event formula too large");
            v = v * 10 + static_cast<uint64_t>(t[j++] - '0');
          }
          factor = static_cast<int64_t>(v);
          while (j < t.size() && isSpace(t[j])) ++j;
          if (j < t.size() && t[j] == '*') ++j;
          while (j < t.size() && isSpace(t[j])) ++j;
        }
        std::string_view ev = t.substr(j);
        bool ok = !ev.empty();
        for (char c : ev) ok &= !isSpace(c) && c != '*';
        if (!ok)
          error(t.data(), "expected a term 'Event' or 'N * Event' in the formula of event " +
                              spec.name + ", found '" + std::string(t) + "'");
        spec.terms.emplace_back(factor, std::string(ev));
        if (plus == f.npos) break;
        pos = plus + 1;
      }
    }
    if (!rest.empty()) {
      if (rest[0] != ':')
        error(rest.data(), "expected '= formula' or ': long name' after the event name, found '" +
                               std::string(rest) + "'");
      spec.longName = std::string(trim(rest.substr(1)));
    }
    eventSpecs_.push_back(std::move(spec));
  } else if (key == "summary" || key == "totals") {
    checks_.push_back({cur_.lineNumber(), cur_.lineOffset() + (value.data() - line_.data()), value,
                       key == "summary" ? "summary:" : "totals:"});
  }
}

void Reader::body(std::string_view line) {
  const char* p = line.data();
  const char* e = p + line.size();
  const char c = *p;
  // Cost lines first: they are nearly all lines.
  if (isDigit(c) || c == '+' || c == '-' || c == '*') {
    needEvents("cost line");
    if (assocKind_ == Kind::COST) needFn("cost line");
    uint64_t pos[kMaxPositions];
    p = positions(p, e, last_, pos, "a cost line");
    size_t n = costs(p, e);
    std::copy(pos, pos + kinds_.size(), last_);
    const uint64_t sf = file_ == fnFile_ ? 0 : file_;
    CostTableBuilder& t = *parts_.back().table;
    if (assocKind_ == Kind::COST) {
      t.cost(context(), sf, pos, costBuf_.data(), n);
    } else {
      t.row(assocKind_, context(), sf, pos, costBuf_.data(), n, assocTarget_, assocPos_,
            assocCount_, assocJumped_);
      assocKind_ = Kind::COST;
    }
    return;
  }
  if (assocKind_ != Kind::COST)
    error(p, "expected the cost line of the " +
                 std::string(assocKind_ == Kind::CALL   ? "calls="
                             : assocKind_ == Kind::JUMP ? "jump="
                                                        : "jcnd=") +
                 " on line " + std::to_string(assocLine_) + ", found '" +
                 std::string(line.substr(0, 40)) + "'");
  size_t eq = line.find('=');
  std::string_view spec = eq == line.npos || eq > 5 ? std::string_view() : line.substr(0, eq);
  std::string_view v = eq == line.npos ? std::string_view() : line.substr(eq + 1);
  auto assoc = [&](Kind kind) {
    needEvents(kind == Kind::CALL ? "calls=" : "jump");
    needFn(kind == Kind::CALL ? "calls=" : kind == Kind::JUMP ? "jump=" : "jcnd=");
    const char* q = v.data();
    const char* end = v.data() + v.size();
    while (q < end && isSpace(*q)) ++q;
    assocJumped_ = 0;
    if (kind == Kind::COND_JUMP) {
      const char* b = q;
      while (q < end && *q != '/') ++q;
      if (q == end) error(b, "expected 'jumped/executed' counts after jcnd=");
      number(b, q, assocJumped_, "the jump count of jcnd=");
      ++q;
    }
    const bool minus = kind == Kind::CALL && end - q > 1 && *q == '-' && isDigit(q[1]);
    const char* sign = q;
    q = number(q + minus, end, assocCount_,
               kind == Kind::CALL   ? "the call count of calls="
               : kind == Kind::JUMP ? "the count of jump="
                                    : "the execution count of jcnd=");
    if (minus) assocCount_ = negated(sign, end, assocCount_);
    q = positions(q, end, last_, assocPos_, "the target position");
    while (q < end && isSpace(*q)) ++q;
    if (q < end) error(q, "unexpected text after the target position: " + firstWord(q, end));
    if (kind == Kind::CALL && !haveCallee_)
      error(line.data(), "calls= without a preceding cfn= line");
    associate(kind);
  };
  // Dispatch on the key's letters packed into an integer: no string compares per line.
  uint64_t code = 0;
  for (char ch : spec) code = code << 8 | static_cast<unsigned char>(ch);
  constexpr auto key = [](const char* k) {
    uint64_t c = 0;
    while (*k) c = c << 8 | static_cast<unsigned char>(*k++);
    return c;
  };
  switch (code) {
    case key("fn"):
      fn_ = name(spec, kFunctions, v);
      fnObject_ = object_;
      fnFile_ = file_;
      haveFn_ = true;
      ctxValid_ = false;
      break;
    case key("fl"):
    case key("fi"):
    case key("fe"): file_ = name(spec, kFiles, v); break;
    case key("ob"): object_ = name(spec, kObjects, v); break;
    case key("cob"): cob_ = name(spec, kObjects, v); break;
    case key("cfi"):
    case key("cfl"): cfi_ = name(spec, kFiles, v); break;
    case key("cfn"): setCallee(name(spec, kFunctions, v)); break;
    case key("calls"): assoc(Kind::CALL); break;
    case key("jump"): assoc(Kind::JUMP); break;
    case key("jcnd"): assoc(Kind::COND_JUMP); break;
    case key("jfi"): jfi_ = name(spec, kFiles, v); break;
    case key("jfn"): jfn_ = name(spec, kFunctions, v); break;
    default:
      error(p,
            "expected a cost line, a position (ob= fl= fi= fe= fn= cob= cfi= cfl= cfn= jfi= "
            "jfn=), calls=, jump= or jcnd=, found '" +
                std::string(line.substr(0, 40)) + "'");
  }
}

std::unique_ptr<Profile> Reader::run() {
  startPart();
  const char* p = cur_.base;
  const char* const end = p + data_.size();
  PageReleaser releaser(reinterpret_cast<const uint8_t*>(p), data_.size());
  // Lines that start before the input's last newline end with a newline in the input.
  const char* lastNewline = static_cast<const char*>(memrchr(p, '\n', data_.size()));
  const char* const checkedFrom = lastNewline ? lastNewline : p;
  // NUL bytes are rejected a window ahead of the parser, not in a pass of their own first:
  // that pass would make the whole input resident at once, while the releaser drops the pages
  // behind the parser. Every byte the checked path reads lies before nulCheckedTo; the fast
  // paths read on only over digits, blanks and the like, and stop at a NUL.
  constexpr size_t kNulWindow = size_t{1} << 20;
  size_t nulCheckedTo = 0;
  auto checkNul = [&](size_t to) {
    to = std::min(std::max(to, nulCheckedTo + kNulWindow), data_.size());
    rejectNul(data_, nulCheckedTo, to, kFmt);
    nulCheckedTo = to;
  };
  checkNul(0);
  while (p < end) {
    releaser.upTo(reinterpret_cast<const uint8_t*>(p));
    if (static_cast<size_t>(p - cur_.base) + 4096 > nulCheckedTo)
      checkNul(static_cast<size_t>(p - cur_.base));
    cur_.lineStart = p;
    ++cur_.lineNo;
    {
      const char c = *p;
      if (haveFn_ && haveEvents_ && inBody_) {
        if (isDigit(c) || c == '+' || c == '-' || c == '*') {
          if (const char* next =
                  p < checkedFrom ? fastCostLineBeforeNewline(p) : fastCostLine(p, end)) {
            p = next;
            continue;
          }
        } else if ((c == 'c' || c == 'j') && p < checkedFrom && assocKind_ == Kind::COST) {
          if (const char* next = fastSpecLine(p)) {
            p = next;
            continue;
          }
        }
      }
    }
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    size_t len = nl ? static_cast<size_t>(nl - p) : static_cast<size_t>(end - p);
    if (static_cast<size_t>(p - cur_.base) + len >= nulCheckedTo)
      checkNul(static_cast<size_t>(p - cur_.base) + len + 1);
    std::string_view line(p, len && p[len - 1] == '\r' ? len - 1 : len);
    p = nl ? nl + 1 : end;
    line_ = line;
    if (line.empty()) {
      if (assocKind_ != Kind::COST) goto association;
      (inBody_ ? pending_ : parts_.back().lines)
          .push_back({"", "", "", ir::HeaderLine::Placement::HEADER});
      continue;
    }
    {
      const char c = line[0];
      if (isDigit(c) || c == '+' || c == '-' || c == '*' || isSpecLine(line)) {
        if (!inBody_) inBody_ = true;
        pending_.clear();  // comments inside a body carry nothing
        body(line);
        continue;
      }
    }
    if (assocKind_ != Kind::COST) goto association;
    if (line[0] == '#' || trim(line).empty()) {
      (inBody_ ? pending_ : parts_.back().lines)
          .push_back({std::string(line), "", "", ir::HeaderLine::Placement::HEADER});
      continue;
    }
    {
      std::string_view key, value;
      if (!splitKey(line, key, value))
        error(line.data(),
              "expected 'key: value', a position (fn= ...), a cost line or an "
              "association, found '" +
                  std::string(line.substr(0, 40)) + "'");
      auto placement = ir::HeaderLine::Placement::HEADER;
      if (inBody_) {
        if (key == "totals" || key == "summary") {
          placement = ir::HeaderLine::Placement::TRAILER;
          for (Line& l : pending_) {
            l.placement = placement;
            parts_.back().lines.push_back(std::move(l));
          }
          pending_.clear();
        } else {
          std::vector<Line> carried = std::move(pending_);
          pending_.clear();
          startPart();
          parts_.back().lines = std::move(carried);
        }
      }
      header(key, value);
      parts_.back().lines.push_back(
          {std::string(line), std::string(key), std::string(value), placement});
    }
    continue;
  association:
    fail(kFmt, cur_.lineOffset(), cur_.lineNumber(),
         std::string("expected the cost line of the ") +
             (assocKind_ == Kind::CALL   ? "calls="
              : assocKind_ == Kind::JUMP ? "jump="
                                         : "jcnd=") +
             " on line " + std::to_string(assocLine_) + ", found " +
             (line.empty() ? "an empty line" : "'" + std::string(line.substr(0, 40)) + "'"));
  }
  if (assocKind_ != Kind::COST)
    fail(kFmt, data_.size(), cur_.lineNumber(),
         std::string("expected the cost line of the ") +
             (assocKind_ == Kind::CALL ? "calls=" : "jump") + " on line " +
             std::to_string(assocLine_) + ", found the end of the file");
  for (Line& l : pending_) {
    l.placement = ir::HeaderLine::Placement::TRAILER;
    parts_.back().lines.push_back(std::move(l));
  }
  if (!haveEvents_) fail(kFmt, data_.size(), cur_.lineNumber(), "missing events: line");
  for (const CostCheck& c : checks_) {
    size_t n = 0;
    for (std::string_view w : words(c.value)) {
      if (++n > events_.size())
        fail(kFmt, c.offset + static_cast<uint64_t>(w.data() - c.value.data()), c.line,
             std::string(c.key) + " has more costs than the " + std::to_string(events_.size()) +
                 " events declared by events:");
      size_t pos = w.size() > 1 && w[0] == '-' ? 1 : 0;  // a difference's negative total
      uint64_t v;
      NumResult r = parseNumber(w, pos, v);
      if (r != NumResult::ok || pos != w.size())
        fail(kFmt, c.offset + static_cast<uint64_t>(w.data() - c.value.data()), c.line,
             std::string(c.key) +
                 (r == NumResult::overflow ? " cost does not fit in 64 bits: '"
                                           : " expected a cost (a number), found '") +
                 std::string(w) + "'");
    }
  }

  // Build the message.
  // The first segment is sized from the IR's content, never from the input's size, so equal
  // IRs get equal message layouts and byte-identical .ppk files.
  uint64_t estimate = 4096 + contexts_.size() * 24;
  for (uint64_t i = 1; i < strings_.size(); ++i) estimate += strings_.get(i).size() + 8;
  for (auto& p : parts_) {
    estimate += p.table->bytes() + 1024;
    for (auto& l : p.lines) estimate += 2 * l.text.size() + 48;
  }
  auto message = newMessage(estimate + estimate / 8);
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::CALLGRIND);
  root.setSignedCosts(negative_);
  root.setFormatVersion(version_);
  std::vector<bool> used(strings_.size(), false);
  contexts_.markUsed(used);
  for (auto& p : parts_) p.table->markUsed(used);
  // Sorting the strings (1.5 ms for 11,000 C++ names) runs on a second thread while this one
  // copies the cost tables into the message; the source-file columns, which need the sorted
  // numbering, follow. Only this thread touches the message.
  std::vector<uint64_t> remap;
  auto parts = root.initParts(static_cast<unsigned>(parts_.size()));
  {
    std::exception_ptr sortError;
    auto sortStrings = [&] {
      try {
        remap = strings_.sortAndCompact(used);
      } catch (...) {
        sortError = std::current_exception();
      }
    };
    std::thread sorter;
    if (strings_.size() >= 4096) {
      try {
        sorter = std::thread(sortStrings);
      } catch (const std::system_error&) {  // no thread to be had: sort below
      }
    }
    struct Join {
      std::thread& t;
      ~Join() {
        if (t.joinable()) t.join();
      }
    } join{sorter};
    for (size_t pi = 0; pi < parts_.size(); ++pi) {
      auto part = parts[static_cast<unsigned>(pi)];
      setHeaderLines(part, parts_[pi].lines);
      parts_[pi].table->buildColumns(part.initCosts());
    }
    if (sorter.joinable())
      sorter.join();
    else
      sortStrings();
    if (sortError) std::rethrow_exception(sortError);
  }
  strings_.build(root.initStrings());
  auto ev = root.initEvents(static_cast<unsigned>(events_.size()));
  size_t derived = 0;
  for (const EventSpec& s : eventSpecs_)
    if (!s.formula.empty()) ++derived;
  for (size_t i = 0; i < events_.size(); ++i) {
    auto b = ev[static_cast<unsigned>(i)];
    b.setName(events_[i]);
    for (const EventSpec& s : eventSpecs_)
      if (s.formula.empty() && s.name == events_[i]) b.setLongName(s.longName);
  }
  auto de = root.initDerivedEvents(static_cast<unsigned>(derived));
  unsigned di = 0;
  for (const EventSpec& s : eventSpecs_) {
    if (s.formula.empty()) continue;
    auto b = de[di++];
    b.setName(s.name);
    b.setLongName(s.longName);
    b.setFormula(s.formula);
    auto terms = b.initTerms(static_cast<unsigned>(s.terms.size()));
    for (size_t i = 0; i < s.terms.size(); ++i) {
      terms[static_cast<unsigned>(i)].setFactor(s.terms[i].first);
      terms[static_cast<unsigned>(i)].setEvent(s.terms[i].second);
    }
  }
  auto kinds = root.initPositionKinds(static_cast<unsigned>(kinds_.size()));
  for (size_t i = 0; i < kinds_.size(); ++i) kinds.set(static_cast<unsigned>(i), kinds_[i]);
  contexts_.build(root.initContexts(), remap);
  for (size_t pi = 0; pi < parts_.size(); ++pi) {
    parts_[pi].table->buildSourceFiles(parts[static_cast<unsigned>(pi)].getCosts(), remap);
    parts_[pi].table.reset();
  }
  return std::make_unique<Profile>(std::move(message));
}

}  // namespace

namespace {
// True if valgrind's callgrind wrote the profile: it ends every part with totals:.
bool fromValgrind(ir::Profile::Reader root) {
  for (auto part : root.getParts())
    for (auto h : part.getHeaderLines())
      if (std::string_view(h.getKey().cStr()) == "creator")
        return std::string_view(h.getValue().cStr()).starts_with("callgrind-");
  return false;
}

bool hasTotals(ir::Part::Reader part) {
  for (auto h : part.getHeaderLines()) {
    const std::string_view key(h.getKey().cStr());
    if (h.getPlacement() == ir::HeaderLine::Placement::TRAILER &&
        (key == "totals" || key == "summary"))
      return true;
  }
  return false;
}
}  // namespace

std::unique_ptr<Profile> readCallgrind(std::span<const uint8_t> all, const ReadOptions& options) {
  // A last line without a newline, and a part of valgrind's that ends without its totals:
  // line, are loaded as far as they go, with a warning; errors when strict.
  const uint64_t complete = completeLines(all);
  if (complete < all.size()) truncated(kFmt, all, complete, kCutLine, options.strict, nullptr);
  auto profile = Reader(all).run();  // (which rejects NUL bytes as it goes)
  auto parts = profile->root().getParts();
  const char* kNoTotals =
      "the last part ends without the totals: line callgrind writes after it, so the file was "
      "cut: every complete line before it was loaded";
  const bool noTotals =
      parts.size() > 0 && fromValgrind(profile->root()) && !hasTotals(parts[parts.size() - 1]);
  if (noTotals) truncated(kFmt, all, all.size(), kNoTotals, options.strict, nullptr);
  if (complete < all.size()) truncated(kFmt, all, complete, kCutLine, false, profile.get());
  if (noTotals) truncated(kFmt, all, all.size(), kNoTotals, false, profile.get());
  return profile;
}

}  // namespace profpack
