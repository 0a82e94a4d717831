// Cachegrind text format (cachegrind-manual.xml, "Cachegrind Output File Format").
//
//   file        ::= desc_line* cmd_line events_line data_line+ summary_line
//   data_line   ::= "fl=" filename | "fn=" fn_name | line_num (count ws)+
//   count       ::= num | "."
//
// Kept in the IR: every header line in order (unknown keys, comments and blank lines too),
// every count line in file order as one cost row (several lines for one position stay
// separate; queries sum them), and the summary line as a trailer line.

#include <string>
#include <vector>

#include "error.h"
#include "formats/cachegrind/cachegrind.h"
#include "formats/callgrind/costs.h"
#include "formats/callgrind/text_end.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "cachegrind";

using Line = HeaderLineText;

// Parses counts ("." = 0) from s[pos..] into out; returns how many. A count may be negative
// (cg_diff writes differences): it is kept as its two's complement and `negative` is set.
size_t parseCounts(std::string_view s, size_t pos, size_t maxCounts, std::vector<uint64_t>& out,
                   const LineCursor& cur, const char* what, bool& negative,
                   bool* unusual = nullptr) {
  size_t n = 0;
  for (;;) {
    while (pos < s.size() && isSpace(s[pos])) ++pos;
    if (pos >= s.size()) break;
    if (n == maxCounts)
      fail(kFmt, cur.lineOffset() + pos, cur.lineNumber(),
           std::string(what) + " has more counts than the " + std::to_string(maxCounts) +
               " events declared by events:");
    uint64_t v = 0;
    if (s[pos] == '.' && (pos + 1 == s.size() || isSpace(s[pos + 1]))) {
      ++pos;
      if (unusual) *unusual = true;  // written back as 0
    } else {
      size_t start = pos;
      const bool minus =
          s[pos] == '-' && pos + 1 < s.size() && s[pos + 1] >= '0' && s[pos + 1] <= '9';
      if (minus) ++pos;
      NumResult r = parseNumber(s, pos, v);
      // A positive count from 2^63 up prints as negative once the file is signed.
      if (unusual && !minus && r == NumResult::ok && v >= uint64_t{1} << 63) *unusual = true;
      if (minus && r == NumResult::ok) {
        if (v > uint64_t{1} << 63)
          fail(kFmt, cur.lineOffset() + start, cur.lineNumber(),
               "count does not fit in 64 bits: '" + std::string(words(s.substr(start))[0]) + "'");
        v = ~v + 1;
        negative |= v != 0;  // "-0" is 0, and makes no profile signed
      }
      if (r == NumResult::overflow)
        fail(kFmt, cur.lineOffset() + start, cur.lineNumber(),
             "count does not fit in 64 bits: '" + std::string(words(s.substr(start))[0]) + "'");
      if (r != NumResult::ok || (pos < s.size() && !isSpace(s[pos])))
        fail(kFmt, cur.lineOffset() + start, cur.lineNumber(),
             "expected a count (a decimal number or '.'), found '" +
                 std::string(words(s.substr(start))[0]) + "'");
    }
    out[n++] = v;
  }
  return n;
}

std::string costText(uint64_t v, bool isSigned) {
  std::string out;
  appendCost(out, v, isSigned);
  return out;
}

constexpr const char* kNoSummary =
    "the file ends without the summary: line cachegrind writes last, so it was cut: every "
    "complete line before it was loaded";

// The reader's steps: each line (fl=/fn= lines, count lines, the summary line, header lines),
// the checks of the whole file, and the message.
class Reader {
 public:
  Reader(std::span<const uint8_t> all, const ReadOptions& options, uint64_t complete)
      : all_(all),
        options_(options),
        complete_(complete),
        cur_(all),
        text_(reinterpret_cast<const char*>(all.data()), all.size()) {}

  std::unique_ptr<Profile> run() {
    std::string_view line;
    while (cur_.next(line)) step(line);
    checks();
    return build();
  }

 private:
  void step(std::string_view line) {
    if (haveSummary_ && !trim(line).empty() && line[0] != '#')
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(),
           "unexpected line after the summary: line (the summary must be last)");
    if (!inBody_ && !haveSummary_ &&
        (line.starts_with("fl=") || line.starts_with("fn=") ||
         (!line.empty() && line[0] >= '0' && line[0] <= '9')))
      spanStart_ = cur_.lineOffset();  // the body starts here
    if (line.starts_with("fl=")) {
      bodyLine();
      fileName_ = line.substr(3);
      file_ = strings_.intern(fileName_);
      ctxValid_ = false;
    } else if (line.starts_with("fn=")) {
      bodyLine();
      fnName_ = line.substr(3);
      fn_ = strings_.intern(fnName_);
      haveFn_ = true;
      ctxValid_ = false;
    } else if (!line.empty() && line[0] >= '0' && line[0] <= '9') {
      bodyLine();
      countLine(line);
    } else {
      keyLine(line);
    }
  }

  // A line of the body (fl=, fn= or counts): the events must be known.
  void bodyLine() {
    if (!haveEvents_)
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(), "missing events: line before the data");
    inBody_ = true;
  }

  void countLine(std::string_view line) {
    if (!haveFn_)
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(),
           "count line before any fn= line (expected fl= and fn= first)");
    size_t pos = 0;
    uint64_t lineNo = 0;
    NumResult r = parseNumber(line, pos, lineNo);
    if (r == NumResult::overflow)
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(), "line number does not fit in 64 bits");
    if (r != NumResult::ok || (pos < line.size() && !isSpace(line[pos])))
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(),
           "expected a line number followed by counts, found '" + std::string(line) + "'");
    bool unusual = false;
    size_t n =
        parseCounts(line, pos, events_.size(), counts_, cur_, "count line", negative_, &unusual);
    if (!ctxValid_) {
      ctx_ = contexts_.get(0, file_, fn_);
      ctxValid_ = true;
    }
    table_.row(ir::RecordKind::COST, ctx_, 0, &lineNo, counts_.data(), n);
    for (size_t i = 0; i < n; ++i) totals_[i] += counts_[i];
    // What the writer writes for this row; anything else is kept as written.
    canonical_.clear();
    if (file_ != wFile_) {
      canonical_.append("fl=").append(fileName_) += '\n';
      wFn_ = ~uint64_t{0};
    }
    if (fn_ != wFn_) canonical_.append("fn=").append(fnName_) += '\n';
    wFile_ = file_;
    wFn_ = fn_;
    appendDecimal(canonical_, lineNo);
    for (size_t i = 0; i < n; ++i) {
      canonical_ += ' ';
      appendCost(canonical_, counts_[i], true);
    }
    canonical_ += '\n';
    const std::string_view written = text_.substr(spanStart_, cur_.nextOffset() - spanStart_);
    if (unusual || written != canonical_) {
      verbatimRows_.push_back(rows_);
      verbatimText_.push_back(written);
    }
    ++rows_;
    spanStart_ = cur_.nextOffset();
  }

  // A blank or comment line, the summary line, or a header line.
  void keyLine(std::string_view line) {
    std::string_view key, value;
    if (trim(line).empty() || line[0] == '#') {
      // Kept in the header and after the summary; in the body they carry nothing.
      if (haveSummary_)
        lines_.push_back({std::string(line), "", "", ir::HeaderLine::Placement::TRAILER});
      else if (!inBody_)
        lines_.push_back({std::string(line), "", "", ir::HeaderLine::Placement::HEADER});
      return;
    }
    if (!splitKey(line, key, value))
      fail(
          kFmt, cur_.lineOffset(), cur_.lineNumber(),
          "expected 'key: value', 'fl=', 'fn=' or a count line, found '" + std::string(line) + "'");
    if (key == "summary") return summaryLine(line, key, value);
    if (inBody_)
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(),
           "header line '" + std::string(key) + ":' inside the data (expected fl=, fn= or counts)");
    if (key == "events") {
      if (haveEvents_) fail(kFmt, cur_.lineOffset(), cur_.lineNumber(), "second events: line");
      events_ = words(value);
      if (events_.empty())
        fail(kFmt, cur_.lineOffset(), cur_.lineNumber(), "events: line names no events");
      haveEvents_ = true;
      counts_.assign(events_.size(), 0);
      totals_.assign(events_.size(), 0);
      sums_->sums.events = events_.size();  // the model's layer, summed as rows are encoded
      table_.sumInto(&sums_->sums);
    }
    lines_.push_back({std::string(line), std::string(key), std::string(value),
                      ir::HeaderLine::Placement::HEADER});
  }

  void summaryLine(std::string_view line, std::string_view key, std::string_view value) {
    if (!haveEvents_)
      fail(kFmt, cur_.lineOffset(), cur_.lineNumber(), "summary: line before the events: line");
    if (inBody_ && cur_.lineOffset() > spanStart_) {  // lines after the last row
      verbatimRows_.push_back(rows_);
      verbatimText_.push_back(text_.substr(spanStart_, cur_.lineOffset() - spanStart_));
    }
    haveSummary_ = true;
    summaryLine_ = cur_.lineNumber();
    summaryOffset_ = cur_.lineOffset();
    summary_.assign(events_.size(), 0);
    parseCounts(line, static_cast<size_t>(value.data() - line.data()), events_.size(), summary_,
                cur_, "summary: line", negative_);
    lines_.push_back({std::string(line), std::string(key), std::string(value),
                      ir::HeaderLine::Placement::TRAILER});
  }

  // The file as a whole: events declared, a summary (or a warning) that matches the counts.
  void checks() {
    if (!haveEvents_) fail(kFmt, all_.size(), cur_.lineNumber(), "missing events: line");
    // A summary line cut short (the last line, without its newline) that disagrees with the
    // counts is not kept: written back whole, it would be a wrong summary.
    if (haveSummary_ && summaryOffset_ >= complete_ && summary_ != totals_) {
      lines_.pop_back();
      haveSummary_ = false;
    }
    if (!haveSummary_) truncated(kFmt, all_, all_.size(), kNoSummary, options_.strict, nullptr);
    if (haveSummary_) {
      for (size_t i = 0; i < events_.size(); ++i)
        if (summary_[i] != totals_[i])
          fail(kFmt, summaryOffset_, summaryLine_,
               "summary for event " + std::string(events_[i]) + " is " +
                   costText(summary_[i], negative_) + " but the counts add up to " +
                   costText(totals_[i], negative_));
    }
  }

  std::unique_ptr<Profile> build() {
    auto message = newMessage(all_.size());
    auto root = message->getRoot<ir::Profile>();
    root.setFormat(ir::Format::CACHEGRIND);
    root.setSignedCosts(negative_);
    std::vector<bool> used(strings_.size(), false);
    contexts_.markUsed(used);
    table_.markUsed(used);
    std::vector<uint64_t> remap = strings_.sortAndCompact(used);
    strings_.build(root.initStrings());
    auto ev = root.initEvents(static_cast<unsigned>(events_.size()));
    for (size_t i = 0; i < events_.size(); ++i)
      ev[static_cast<unsigned>(i)].setName(kj::StringPtr(std::string(events_[i]).c_str()));
    root.initPositionKinds(1).set(0, ir::PositionKind::LINE);
    contexts_.build(root.initContexts(), remap);
    // A file without summary: ends with its body, whose text after the last row is kept too.
    // (A cut summary line that was left out has had its text before it recorded already.)
    if (!haveSummary_ && inBody_ && all_.size() > spanStart_ &&
        (verbatimRows_.empty() || verbatimRows_.back() != rows_)) {
      verbatimRows_.push_back(rows_);
      verbatimText_.push_back(text_.substr(spanStart_));
    }
    auto part = root.initParts(1)[0];
    // After the summary only trailer lines come: a last line without its newline is one of them,
    // kept with a '\r' it may end in (there is no CRLF ending to take it as the '\r' of).
    const bool unterminated = haveSummary_ && complete_ < all_.size();
    if (unterminated) lines_.back().text = std::string(text_.substr(complete_));
    setHeaderLines(part, lines_);
    part.setLastTrailerUnterminated(unterminated);
    table_.build(part.initCosts(), remap);
    if (!verbatimRows_.empty()) {
      encodeColumn(part.initVerbatimRows(), verbatimRows_, ir::Column::Encoding::ZIGZAG_DELTA);
      auto vt = part.initVerbatimText(static_cast<unsigned>(verbatimText_.size()));
      for (size_t i = 0; i < verbatimText_.size(); ++i)
        vt.set(static_cast<unsigned>(i),
               capnp::Data::Reader(reinterpret_cast<const kj::byte*>(verbatimText_[i].data()),
                                   verbatimText_[i].size()));
    }
    auto profile = std::make_unique<Profile>(std::move(message));
    sums_->sums.renumberFiles(remap);
    profile->keepDecoded(std::move(sums_));
    if (complete_ < all_.size()) truncated(kFmt, all_, complete_, kCutLine, false, profile.get());
    if (!haveSummary_) truncated(kFmt, all_, all_.size(), kNoSummary, false, profile.get());
    return profile;
  }

  const std::span<const uint8_t> all_;
  const ReadOptions& options_;
  const uint64_t complete_;  // the end of the last complete line
  LineCursor cur_;
  const std::string_view text_;

  std::vector<Line> lines_;
  bool negative_ = false;  // a count below zero: the file is a difference (cg_diff)
  std::vector<std::string_view> events_;
  bool haveEvents_ = false, haveSummary_ = false, inBody_ = false;
  uint64_t summaryLine_ = 0, summaryOffset_ = 0;
  std::vector<uint64_t> summary_;

  StringInterner strings_;
  ContextTable contexts_;
  // Before table_, which adds to it: it must outlive the builder's worker thread.
  std::unique_ptr<DecodedRowSums> sums_ = std::make_unique<DecodedRowSums>();
  CostTableBuilder table_{1};
  uint64_t file_ = 0, fn_ = 0;
  bool haveFn_ = false;
  uint64_t ctx_ = 0;
  bool ctxValid_ = false;
  std::vector<uint64_t> counts_, totals_;
  // The body as the writer would write it, row by row; where the file says it otherwise, the
  // file's bytes are kept (Part.verbatimRows/verbatimText).
  std::string_view fileName_, fnName_;
  uint64_t wFile_ = 0, wFn_ = ~uint64_t{0};  // the writer's fl=/fn= in effect
  uint64_t spanStart_ = 0, rows_ = 0;
  std::vector<uint64_t> verbatimRows_;
  std::vector<std::string_view> verbatimText_;
  std::string canonical_;
};

}  // namespace

std::unique_ptr<Profile> readCachegrind(std::span<const uint8_t> all, const ReadOptions& options) {
  // A last line without a newline, and a file without the summary: line cachegrind writes
  // last, are loaded as far as they go, with a warning; errors when strict.
  const uint64_t complete = completeLines(all);
  if (complete < all.size()) truncated(kFmt, all, complete, kCutLine, options.strict, nullptr);
  rejectNul(all, kFmt);
  return Reader(all, options, complete).run();
}

}  // namespace profpack
