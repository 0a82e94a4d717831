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

}  // namespace

std::unique_ptr<Profile> readCachegrind(std::span<const uint8_t> all, const ReadOptions& options) {
  // A last line without a newline, and a file without the summary: line cachegrind writes
  // last, are loaded as far as they go, with a warning; errors when strict.
  const uint64_t complete = completeLines(all);
  if (complete < all.size()) truncated(kFmt, all, complete, kCutLine, options.strict, nullptr);
  const std::span<const uint8_t> data = all;
  rejectNul(all, kFmt);
  LineCursor cur(data);
  std::string_view line;
  std::vector<Line> lines;
  bool negative = false;  // a count below zero: the file is a difference (cg_diff)
  std::vector<std::string_view> events;
  bool haveEvents = false, haveSummary = false, inBody = false;
  uint64_t summaryLine = 0, summaryOffset = 0;
  std::vector<uint64_t> summary;

  StringInterner strings;
  ContextTable contexts;
  CostTableBuilder table(1);
  uint64_t file = 0, fn = 0;
  bool haveFn = false;
  uint64_t ctx = 0;
  bool ctxValid = false;
  std::vector<uint64_t> counts, totals;
  // The body as the writer would write it, row by row; where the file says it otherwise, the
  // file's bytes are kept (Part.verbatimRows/verbatimText).
  std::string_view fileName, fnName;
  uint64_t wFile = 0, wFn = ~uint64_t{0};  // the writer's fl=/fn= in effect
  uint64_t spanStart = 0, rows = 0;
  std::vector<uint64_t> verbatimRows;
  std::vector<std::string_view> verbatimText;
  const std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
  std::string canonical;

  while (cur.next(line)) {
    if (haveSummary && !trim(line).empty() && line[0] != '#')
      fail(kFmt, cur.lineOffset(), cur.lineNumber(),
           "unexpected line after the summary: line (the summary must be last)");
    if (!inBody && !haveSummary &&
        (line.starts_with("fl=") || line.starts_with("fn=") ||
         (!line.empty() && line[0] >= '0' && line[0] <= '9')))
      spanStart = cur.lineOffset();  // the body starts here
    if (line.starts_with("fl=")) {
      if (!haveEvents)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "missing events: line before the data");
      inBody = true;
      fileName = line.substr(3);
      file = strings.intern(fileName);
      ctxValid = false;
      continue;
    }
    if (line.starts_with("fn=")) {
      if (!haveEvents)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "missing events: line before the data");
      inBody = true;
      fnName = line.substr(3);
      fn = strings.intern(fnName);
      haveFn = true;
      ctxValid = false;
      continue;
    }
    if (!line.empty() && line[0] >= '0' && line[0] <= '9') {
      if (!haveEvents)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "missing events: line before the data");
      inBody = true;
      if (!haveFn)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(),
             "count line before any fn= line (expected fl= and fn= first)");
      size_t pos = 0;
      uint64_t lineNo = 0;
      NumResult r = parseNumber(line, pos, lineNo);
      if (r == NumResult::overflow)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "line number does not fit in 64 bits");
      if (r != NumResult::ok || (pos < line.size() && !isSpace(line[pos])))
        fail(kFmt, cur.lineOffset(), cur.lineNumber(),
             "expected a line number followed by counts, found '" + std::string(line) + "'");
      bool unusual = false;
      size_t n =
          parseCounts(line, pos, events.size(), counts, cur, "count line", negative, &unusual);
      if (!ctxValid) {
        ctx = contexts.get(0, file, fn);
        ctxValid = true;
      }
      table.row(ir::RecordKind::COST, ctx, 0, &lineNo, counts.data(), n);
      for (size_t i = 0; i < n; ++i) totals[i] += counts[i];
      // What the writer writes for this row; anything else is kept as written.
      canonical.clear();
      if (file != wFile) {
        canonical.append("fl=").append(fileName) += '\n';
        wFn = ~uint64_t{0};
      }
      if (fn != wFn) canonical.append("fn=").append(fnName) += '\n';
      wFile = file;
      wFn = fn;
      appendDecimal(canonical, lineNo);
      for (size_t i = 0; i < n; ++i) {
        canonical += ' ';
        appendCost(canonical, counts[i], true);
      }
      canonical += '\n';
      const std::string_view written = text.substr(spanStart, cur.nextOffset() - spanStart);
      if (unusual || written != canonical) {
        verbatimRows.push_back(rows);
        verbatimText.push_back(written);
      }
      ++rows;
      spanStart = cur.nextOffset();
      continue;
    }
    std::string_view key, value;
    if (trim(line).empty() || line[0] == '#') {
      // Kept in the header and after the summary; in the body they carry nothing.
      if (haveSummary)
        lines.push_back({std::string(line), "", "", ir::HeaderLine::Placement::TRAILER});
      else if (!inBody)
        lines.push_back({std::string(line), "", "", ir::HeaderLine::Placement::HEADER});
      continue;
    }
    if (!splitKey(line, key, value))
      fail(
          kFmt, cur.lineOffset(), cur.lineNumber(),
          "expected 'key: value', 'fl=', 'fn=' or a count line, found '" + std::string(line) + "'");
    if (key == "summary") {
      if (!haveEvents)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "summary: line before the events: line");
      if (inBody && cur.lineOffset() > spanStart) {  // lines after the last row
        verbatimRows.push_back(rows);
        verbatimText.push_back(text.substr(spanStart, cur.lineOffset() - spanStart));
      }
      haveSummary = true;
      summaryLine = cur.lineNumber();
      summaryOffset = cur.lineOffset();
      summary.assign(events.size(), 0);
      size_t n = parseCounts(line, static_cast<size_t>(value.data() - line.data()), events.size(),
                             summary, cur, "summary: line", negative);
      (void)n;
      lines.push_back({std::string(line), std::string(key), std::string(value),
                       ir::HeaderLine::Placement::TRAILER});
      continue;
    }
    if (inBody)
      fail(kFmt, cur.lineOffset(), cur.lineNumber(),
           "header line '" + std::string(key) + ":' inside the data (expected fl=, fn= or counts)");
    if (key == "events") {
      if (haveEvents) fail(kFmt, cur.lineOffset(), cur.lineNumber(), "second events: line");
      events = words(value);
      if (events.empty())
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "events: line names no events");
      haveEvents = true;
      counts.assign(events.size(), 0);
      totals.assign(events.size(), 0);
    }
    lines.push_back({std::string(line), std::string(key), std::string(value),
                     ir::HeaderLine::Placement::HEADER});
  }
  if (!haveEvents) fail(kFmt, data.size(), cur.lineNumber(), "missing events: line");
  // A summary line cut short (the last line, without its newline) that disagrees with the
  // counts is not kept: written back whole, it would be a wrong summary.
  if (haveSummary && summaryOffset >= complete && summary != totals) {
    lines.pop_back();
    haveSummary = false;
  }
  const char* kNoSummary =
      "the file ends without the summary: line cachegrind writes last, so it was cut: every "
      "complete line before it was loaded";
  if (!haveSummary) truncated(kFmt, all, data.size(), kNoSummary, options.strict, nullptr);
  if (haveSummary) {
    for (size_t i = 0; i < events.size(); ++i)
      if (summary[i] != totals[i])
        fail(kFmt, summaryOffset, summaryLine,
             "summary for event " + std::string(events[i]) + " is " +
                 costText(summary[i], negative) + " but the counts add up to " +
                 costText(totals[i], negative));
  }

  // Build the message.
  auto message = newMessage(data.size());
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::CACHEGRIND);
  root.setSignedCosts(negative);
  std::vector<bool> used(strings.size(), false);
  contexts.markUsed(used);
  table.markUsed(used);
  std::vector<uint64_t> remap = strings.sortAndCompact(used);
  strings.build(root.initStrings());
  auto ev = root.initEvents(static_cast<unsigned>(events.size()));
  for (size_t i = 0; i < events.size(); ++i)
    ev[static_cast<unsigned>(i)].setName(kj::StringPtr(std::string(events[i]).c_str()));
  root.initPositionKinds(1).set(0, ir::PositionKind::LINE);
  contexts.build(root.initContexts(), remap);
  // A file without summary: ends with its body, whose text after the last row is kept too.
  // (A cut summary line that was left out has had its text before it recorded already.)
  if (!haveSummary && inBody && data.size() > spanStart &&
      (verbatimRows.empty() || verbatimRows.back() != rows)) {
    verbatimRows.push_back(rows);
    verbatimText.push_back(text.substr(spanStart));
  }
  auto part = root.initParts(1)[0];
  setHeaderLines(part, lines);
  table.build(part.initCosts(), remap);
  if (!verbatimRows.empty()) {
    encodeColumn(part.initVerbatimRows(), verbatimRows, ir::Column::Encoding::ZIGZAG_DELTA);
    auto vt = part.initVerbatimText(static_cast<unsigned>(verbatimText.size()));
    for (size_t i = 0; i < verbatimText.size(); ++i)
      vt.set(static_cast<unsigned>(i),
             capnp::Data::Reader(reinterpret_cast<const kj::byte*>(verbatimText[i].data()),
                                 verbatimText[i].size()));
  }
  auto profile = std::make_unique<Profile>(std::move(message));
  if (complete < all.size()) truncated(kFmt, all, complete, kCutLine, false, profile.get());
  if (!haveSummary) truncated(kFmt, all, data.size(), kNoSummary, false, profile.get());
  return profile;
}

}  // namespace profpack
