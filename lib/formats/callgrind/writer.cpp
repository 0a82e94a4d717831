// Callgrind profile format, version 1 (callgrind-format.xml): the writer. It writes the
// profile's cost tables (Callgrind or Cachegrind) as valgrind would: compressed ids, relative
// subpositions, cob=/cfi= where a callee's object or file differs, every part's header and
// trailer lines as read (see reader.cpp for what the IR keeps).

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "error.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/common.h"
#include "formats/callgrind/costs.h"
#include "util/text.h"

namespace profpack {

using namespace callgrind;

namespace {

class Writer {
 public:
  Writer(const Profile& profile, Sink& sink)
      : profile_(profile), strings_(profile.strings()), sink_(sink) {}
  void run();

 private:
  void name(const char* spec, IdSpace space, uint64_t s) {
    out_ += spec;
    if (s == 0) {  // "none": an empty name
      endLine(out_);
      return;
    }
    std::string_view text = strings_.get(s);
    const bool likeNumber = text.size() > 1 && text[0] == '(' && text[1] >= '0' && text[1] <= '9';
    if ((plain_ && !likeNumber) || (!text.empty() && isSpace(text[0]))) {
      // A compressed definition would lose leading blanks; such a name cannot start with
      // "(digit" either, so it is written out in full. So is every name of plain text but one
      // that would read as a number.
      out_ += text;
      endLine(out_);
      return;
    }
    out_ += '(';
    appendDecimal(out_, s);
    out_ += ')';
    if (!defined_[space][s]) {
      defined_[space][s] = true;
      out_ += ' ';
      out_ += text;
    }
    endLine(out_);
  }
  void positions(const uint64_t* pos) {
    for (size_t k = 0; k < npos_; ++k) {
      if (k) out_ += ' ';
      const uint64_t v = pos[k];
      if (!baseKnown_ || plain_) {
        absolute(k, v);
        continue;
      }
      const uint64_t b = last_[k];
      if (v == b) {
        out_ += '*';
        continue;
      }
      uint64_t d = v > b ? v - b : b - v;
      // Relative when it is no longer than the absolute form.
      if (digits(d, 10) + 1 <= (isInstr_[k] ? 2 + digits(v, 16) : digits(v, 10))) {
        out_ += v > b ? '+' : '-';
        appendDecimal(out_, d);
      } else {
        absolute(k, v);
      }
    }
  }
  // The steps of run().
  void checkPositions(const capnp::List<ir::PositionKind>::Reader& kinds, size_t events);
  void freshHeader(const ir::Profile::Reader& root, const ir::Part::Reader& part);
  bool body(CostTableBatches& t, const DecodedContexts& contexts, std::vector<uint64_t>& totals);
  // Inlined: called once per row, and as a call it costs the writer some 3%.
  [[gnu::always_inline]] inline void row(const CostTableBatches& t, const DecodedContexts& contexts,
                                         size_t r, size_t& ci, size_t& ai, size_t& ji,
                                         std::vector<uint64_t>& totals);
  void arc(const CostTableBatches& t, const DecodedContexts& contexts, Kind kind, uint64_t o,
           uint64_t fn, size_t ai, size_t& ji);
  void totalsLine(const std::vector<uint64_t>& totals);

  static unsigned digits(uint64_t v, unsigned base) {
    unsigned n = 1;
    while (v >= base) v /= base, ++n;
    return n;
  }
  void absolute(size_t k, uint64_t v) {
    if (isInstr_[k])
      appendHex(out_, v);
    else
      appendDecimal(out_, v);
  }

  const Profile& profile_;
  const StringTableReader& strings_;
  std::string out_;      // handed to sink_ by flushIfFull (unless hold_)
  bool signed_ = false;  // costs are two's-complement int64 (a difference)
  bool plain_ = false;   // names in full, positions absolute: text Cachegrind's reader reads
  bool hold_ = false;    // the whole text kept until run() has seen which reader it is for
  Sink& sink_;
  std::vector<bool> defined_[3];
  size_t npos_ = 0;
  bool isInstr_[kMaxPositions] = {false, false, false};
  uint64_t last_[kMaxPositions] = {0, 0, 0};
  bool baseKnown_ = false;
  uint64_t curOb_ = 0, curFile_ = 0, curCtx_ = kUndef;  // the ob=, file and context in effect
};

void Writer::run() {
  auto root = profile_.root();
  auto events = root.getEvents();
  checkPositions(root.getPositionKinds(), events.size());
  DecodedContexts contexts(root.getContexts(), strings_.size());
  const bool own = root.getFormat() == ir::Format::CALLGRIND;
  signed_ = root.getSignedCosts();
  std::vector<uint64_t> totals(events.size(), 0);
  auto parts = root.getParts();
  if (own && !plain_ && parts.size() > 0) {  // a header that does not say Callgrind: see below
    std::string head;
    writeHeaderLines(parts[0], head);
    hold_ = !isCallgrind({reinterpret_cast<const uint8_t*>(head.data()), head.size()});
  }
  for (unsigned pi = 0; pi < parts.size(); ++pi) {
    auto part = parts[pi];
    // A batch of rows at a time: a part of hundreds of millions of rows never sits decoded.
    CostTableBatches t(part.getCosts(), npos_, events.size(), contexts.size(),
                       /*withPositions=*/true);
    std::vector<std::string> trailer;
    if (own) {
      trailer = writeHeaderLines(part, out_);
    } else if (pi == 0) {
      freshHeader(root, part);
      endLine(out_);
    }
    const bool anyRows = body(t, contexts, totals);
    if (own) {
      // A part without cost lines still needs a body line, or its trailer would read back as
      // header lines and the next part's header would run on into this one. "fl=" with an
      // empty name changes no IR (names are interned only when a row uses them; the next
      // part starts from a clean state).
      if (!anyRows && (!trailer.empty() || pi + 1 < parts.size())) endLine(out_ += "fl=");
      for (auto& l : trailer) endLine(out_ += l);
    }
  }
  if (!own) totalsLine(totals);
  // A file read as Callgrind that Cachegrind's reader is the one to read (a Cachegrind file
  // read with the format given) is written back as it was read, so it reads back as Cachegrind,
  // which knows no relative positions ("+6") or compressed names: written again without them,
  // it reads back as the same costs either way, and as the same IR as Callgrind.
  if (hold_ && isCachegrind({reinterpret_cast<const uint8_t*>(out_.data()), out_.size()})) {
    out_.clear();
    plain_ = true;
    hold_ = false;
    run();
    return;
  }
  sink_.write(out_);
  out_.clear();
}

// Events to write, and positions Callgrind can express.
void Writer::checkPositions(const capnp::List<ir::PositionKind>::Reader& kinds, size_t events) {
  if (events == 0)
    throw Error(Status::unsupported, kFmt,
                "the profile has no cost events, so it cannot be written as Callgrind");
  npos_ = kinds.size();
  if (npos_ == 0 || npos_ > kMaxPositions)
    throw Error(Status::unsupported, kFmt, "the profile has no or too many position kinds");
  for (size_t k = 0; k < npos_; ++k) {
    isInstr_[k] = kinds[static_cast<unsigned>(k)] == ir::PositionKind::INSTR;
  }
}

// From another format of the family: a fresh header with what Callgrind has a place for.
void Writer::freshHeader(const ir::Profile::Reader& root, const ir::Part::Reader& part) {
  out_ += "# callgrind format\nversion: 1\ncreator: profpack\n";
  for (auto l : part.getHeaderLines())
    if (l.getKey() == "desc" || l.getKey() == "cmd") {
      out_ += l.getKey().cStr();
      out_ += ": ";
      out_ += l.getValue().cStr();
      endLine(out_);
    }
  out_ += "positions:";
  for (auto k : root.getPositionKinds())
    out_ += k == ir::PositionKind::INSTR ? " instr" : k == ir::PositionKind::BB ? " bb" : " line";
  out_ += "\nevents:";
  for (auto e : root.getEvents()) (out_ += ' ') += e.getName().cStr();
  endLine(out_);
  for (auto e : root.getEvents())
    if (e.getLongName().size())
      endLine(((out_ += "event: ") += e.getName().cStr()) +=
              " : " + std::string(e.getLongName().cStr()));
  for (auto e : root.getDerivedEvents()) {
    ((out_ += "event: ") += e.getName().cStr()) += " = ";
    out_ += e.getFormula().cStr();
    if (e.getLongName().size()) (out_ += " : ") += e.getLongName().cStr();
    endLine(out_);
  }
}

// A part's rows, batch by batch; returns whether it has any. Each part starts from a clean
// state: no names defined, no position, file or context in effect.
bool Writer::body(CostTableBatches& t, const DecodedContexts& contexts,
                  std::vector<uint64_t>& totals) {
  for (auto& d : defined_) d.assign(strings_.size(), false);
  baseKnown_ = false;
  curOb_ = 0, curFile_ = 0, curCtx_ = kUndef;
  bool anyRows = false;
  while (t.next()) {
    anyRows = true;
    size_t ci = 0, ai = 0, ji = 0;
    for (size_t r = 0; r < t.rows; ++r) row(t, contexts, r, ci, ai, ji, totals);
    if (!hold_) flushIfFull(out_, sink_);
  }
  return anyRows;
}

// Row r of the batch: the names that change, its call or jump line if it is one, and its
// positions and costs. ci, ai, ji: the row's first cost, arc and jcnd count in the batch.
void Writer::row(const CostTableBatches& t, const DecodedContexts& contexts, size_t r, size_t& ci,
                 size_t& ai, size_t& ji, std::vector<uint64_t>& totals) {
  const size_t n = t.costCount[r];
  const uint64_t* c = t.costs.data() + ci;
  ci += n;
  const uint64_t ctx = t.context[r];
  const uint64_t o = contexts.object[ctx], f = contexts.file[ctx], fn = contexts.function[ctx];
  if (ctx != curCtx_) {
    if (curCtx_ != kUndef) endLine(out_);
    if (o != curOb_) name("ob=", kObjects, o), curOb_ = o;
    if (f != curFile_) name("fl=", kFiles, f), curFile_ = f;
    name("fn=", kFunctions, fn);
    curCtx_ = ctx;
  }
  const uint64_t eff = t.sourceFile[r] ? t.sourceFile[r] : f;
  if (eff != curFile_) {
    name(eff == f ? "fe=" : "fi=", kFiles, eff);
    curFile_ = eff;
  }
  uint64_t pos[kMaxPositions];
  for (size_t k = 0; k < npos_; ++k) pos[k] = t.positions[k][r];
  const auto kind = static_cast<Kind>(t.kind[r]);
  if (kind != Kind::COST) arc(t, contexts, kind, o, fn, ai++, ji);
  positions(pos);
  std::copy(pos, pos + npos_, last_);
  baseKnown_ = true;
  for (size_t i = 0; i < n; ++i) {
    out_ += ' ';
    appendCost(out_, c[i], signed_);
    if (kind == Kind::COST) totals[i] += c[i];
  }
  endLine(out_);
}

// The calls= or jump=/jcnd= line of arc ai (from a function fn of object o), with the names of
// its target before it.
void Writer::arc(const CostTableBatches& t, const DecodedContexts& contexts, Kind kind, uint64_t o,
                 uint64_t fn, size_t ai, size_t& ji) {
  const uint64_t tc = t.target[ai];
  uint64_t tpos[kMaxPositions];
  for (size_t k = 0; k < npos_; ++k) tpos[k] = t.targetPositions[k][ai];
  const uint64_t count = t.count[ai];
  const uint64_t to = contexts.object[tc], tf = contexts.file[tc], tn = contexts.function[tc];
  if (kind == Kind::CALL) {
    if (to != o) name("cob=", kObjects, to);
    if (tf != curFile_) name("cfi=", kFiles, tf);
    name("cfn=", kFunctions, tn);
    out_ += "calls=";
    appendCost(out_, count, signed_);
  } else {
    if (to != o)
      throw Error(Status::unsupported, kFmt,
                  "a jump leaves its object, which Callgrind cannot express");
    if (tf != curFile_) name("jfi=", kFiles, tf);
    if (tn != fn) name("jfn=", kFunctions, tn);
    if (kind == Kind::JUMP) {
      out_ += "jump=";
    } else {
      out_ += "jcnd=";
      appendDecimal(out_, t.jumped[ji++]);
      out_ += '/';
    }
    appendDecimal(out_, count);
  }
  out_ += ' ';
  positions(tpos);
  endLine(out_);
}

// From another format: the totals of the cost rows.
void Writer::totalsLine(const std::vector<uint64_t>& totals) {
  out_ += "\ntotals:";
  for (uint64_t v : totals) {
    out_ += ' ';
    appendCost(out_, v, signed_);
  }
  endLine(out_);
}

}  // namespace

void writeCallgrind(const Profile& profile, Sink& out) { Writer(profile, out).run(); }

std::string writeCallgrind(const Profile& profile) {
  StringSink out;
  writeCallgrind(profile, out);
  return std::move(out.out);
}

}  // namespace profpack
