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
//
// This file holds the per-line parsing; reader_header.cpp the header lines, the checks at the
// end and the building of the IR; reader.h the reader's state.

#include "formats/callgrind/reader.h"

#include "util/pages.h"

namespace profpack {

using namespace callgrind;
using namespace callgrind::reading;

namespace callgrind::reading {

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

// NUL bytes are rejected a window ahead of the parser, not in a pass of their own first: that
// pass would make the whole input resident at once, while the page releaser drops the pages
// behind the parser. Every byte the checked path reads lies before nulCheckedTo_; the fast
// paths read on only over digits, blanks and the like, and stop at a NUL.
void Reader::checkNul(size_t to) {
  constexpr size_t kNulWindow = size_t{1} << 20;
  to = std::min(std::max(to, nulCheckedTo_ + kNulWindow), data_.size());
  rejectNul(data_, nulCheckedTo_, to, kFmt);
  nulCheckedTo_ = to;
}

[[noreturn]] void Reader::associationNotEnded(std::string_view line) const {
  fail(kFmt, cur_.lineOffset(), cur_.lineNumber(),
       std::string("expected the cost line of the ") +
           (assocKind_ == Kind::CALL   ? "calls="
            : assocKind_ == Kind::JUMP ? "jump="
                                       : "jcnd=") +
           " on line " + std::to_string(assocLine_) + ", found " +
           (line.empty() ? "an empty line" : "'" + std::string(line.substr(0, 40)) + "'"));
}

// A "key: value" line: a header line of the current part, or a trailer line after its body
// (totals:, summary:), or a header line that starts the next part.
void Reader::headerLine(std::string_view line) {
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

// Every line of the input: the fast paths for the frequent body lines, else the line's kind
// decides (blank, body line, comment, header or trailer line).
void Reader::scan() {
  const char* p = cur_.base;
  const char* const end = p + data_.size();
  PageReleaser releaser(reinterpret_cast<const uint8_t*>(p), data_.size());
  // Lines that start before the input's last newline end with a newline in the input.
  const char* lastNewline = static_cast<const char*>(memrchr(p, '\n', data_.size()));
  const char* const checkedFrom = lastNewline ? lastNewline : p;
  checkNul(0);
  while (p < end) {
    releaser.upTo(reinterpret_cast<const uint8_t*>(p));
    if (static_cast<size_t>(p - cur_.base) + 4096 > nulCheckedTo_)
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
    if (static_cast<size_t>(p - cur_.base) + len >= nulCheckedTo_)
      checkNul(static_cast<size_t>(p - cur_.base) + len + 1);
    std::string_view line(p, len && p[len - 1] == '\r' ? len - 1 : len);
    p = nl ? nl + 1 : end;
    line_ = line;
    if (line.empty()) {
      if (assocKind_ != Kind::COST) associationNotEnded(line);
      (inBody_ ? pending_ : parts_.back().lines)
          .push_back({"", "", "", ir::HeaderLine::Placement::HEADER});
      continue;
    }
    const char c = line[0];
    if (isDigit(c) || c == '+' || c == '-' || c == '*' || isSpecLine(line)) {
      if (!inBody_) inBody_ = true;
      pending_.clear();  // comments inside a body carry nothing
      body(line);
      continue;
    }
    if (assocKind_ != Kind::COST) associationNotEnded(line);
    if (line[0] == '#' || trim(line).empty()) {
      (inBody_ ? pending_ : parts_.back().lines)
          .push_back({std::string(line), "", "", ir::HeaderLine::Placement::HEADER});
      continue;
    }
    headerLine(line);
  }
}

std::unique_ptr<Profile> Reader::run() {
  startPart();
  scan();
  finish();
  return build();
}

}  // namespace callgrind::reading

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
