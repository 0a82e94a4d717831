// The Callgrind reader's state (reader.cpp, reader_header.cpp): compressed ids, the parts
// read so far, and the Reader whose steps parse the lines and build the IR.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/common.h"
#include "formats/callgrind/costs.h"
#include "formats/callgrind/text_end.h"
#include "util/text.h"

namespace profpack::callgrind::reading {

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
inline bool isSpecLine(std::string_view line) {
  for (size_t i = 0; i < line.size() && i < 6; ++i) {
    const char c = line[i];
    if (c == '=') return i >= 2;
    if (c < 'a' || c > 'z') return false;
  }
  return false;
}

inline std::string firstWord(const char* p, const char* e) {
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
  // A new cost table for the current part, adding to sums_.
  void newTable() {
    parts_.back().table = std::make_unique<CostTableBuilder>(kinds_.size());
    parts_.back().table->sumInto(&sums_->sums);
  }
  void body(std::string_view line);
  // The steps of run(): every line, dispatched by its kind; the checks at the end of the
  // input; the IR message.
  void scan();
  void checkNul(size_t to);
  void headerLine(std::string_view line);
  [[noreturn]] void associationNotEnded(std::string_view line) const;
  void finish();
  std::unique_ptr<Profile> build();
  void buildEvents(ir::Profile::Builder root) const;
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
  size_t nulCheckedTo_ = 0;  // NUL bytes rejected up to here (see scan())

  StringInterner strings_;
  ContextTable contexts_;
  IdMap ids_[3];
  // The function layer's sums, for the model (every part's builder adds to them). Declared
  // before parts_, so that it outlives their builders: a read that fails destroys the builders
  // first, which stops the worker thread that may still be adding to it.
  std::unique_ptr<DecodedRowSums> sums_ = std::make_unique<DecodedRowSums>();
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

}  // namespace profpack::callgrind::reading
