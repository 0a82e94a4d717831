// Cachegrind text format (cachegrind-manual.xml, "Cachegrind Output File Format").
//
//   file        ::= desc_line* cmd_line events_line data_line+ summary_line
//   data_line   ::= "fl=" filename | "fn=" fn_name | line_num (count ws)+
//   count       ::= num | "."
//
// Kept in the IR: every header line in order (unknown keys, comments and blank lines too),
// every count line in file order as one cost row (several lines for one position stay
// separate; queries sum them), and the summary line as a trailer line.

#include "formats/cachegrind/cachegrind.h"

#include <string>
#include <vector>

#include "error.h"
#include "formats/callgrind/costs.h"
#include "formats/callgrind/text_end.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "cachegrind";

using Line = HeaderLineText;

// Parses counts ("." = 0) from s[pos..] into out; returns how many.
size_t parseCounts(std::string_view s, size_t pos, size_t maxCounts, std::vector<uint64_t>& out,
                   const LineCursor& cur, const char* what) {
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
    } else {
      size_t start = pos;
      NumResult r = parseNumber(s, pos, v);
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

  while (cur.next(line)) {
    if (haveSummary && !trim(line).empty() && line[0] != '#')
      fail(kFmt, cur.lineOffset(), cur.lineNumber(),
           "unexpected line after the summary: line (the summary must be last)");
    if (line.starts_with("fl=")) {
      if (!haveEvents)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "missing events: line before the data");
      inBody = true;
      file = strings.intern(line.substr(3));
      ctxValid = false;
      continue;
    }
    if (line.starts_with("fn=")) {
      if (!haveEvents)
        fail(kFmt, cur.lineOffset(), cur.lineNumber(), "missing events: line before the data");
      inBody = true;
      fn = strings.intern(line.substr(3));
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
      size_t n = parseCounts(line, pos, events.size(), counts, cur, "count line");
      if (!ctxValid) {
        ctx = contexts.get(0, file, fn);
        ctxValid = true;
      }
      table.row(ir::RecordKind::COST, ctx, 0, &lineNo, counts.data(), n);
      for (size_t i = 0; i < n; ++i) totals[i] += counts[i];
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
      haveSummary = true;
      summaryLine = cur.lineNumber();
      summaryOffset = cur.lineOffset();
      summary.assign(events.size(), 0);
      size_t n = parseCounts(line, static_cast<size_t>(value.data() - line.data()), events.size(),
                             summary, cur, "summary: line");
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
             "summary for event " + std::string(events[i]) + " is " + std::to_string(summary[i]) +
                 " but the counts add up to " + std::to_string(totals[i]));
  }

  // Build the message.
  auto message = newMessage(data.size());
  auto root = message->getRoot<ir::Profile>();
  root.setFormat(ir::Format::CACHEGRIND);
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
  auto part = root.initParts(1)[0];
  setHeaderLines(part, lines);
  table.build(part.initCosts(), remap);
  auto profile = std::make_unique<Profile>(std::move(message));
  if (complete < all.size()) truncated(kFmt, all, complete, kCutLine, false, profile.get());
  if (!haveSummary) truncated(kFmt, all, data.size(), kNoSummary, false, profile.get());
  return profile;
}

std::string writeCachegrind(const Profile& profile) {
  StringSink out;
  writeCachegrind(profile, out);
  return std::move(out.out);
}

void writeCachegrind(const Profile& profile, Sink& sink) {
  auto root = profile.root();
  const StringTableReader& strings = profile.strings();
  auto events = root.getEvents();
  auto kinds = root.getPositionKinds();
  if (events.size() == 0)
    throw Error(Status::unsupported, kFmt,
                "the profile has no cost events, so it cannot be written as Cachegrind");
  int linePos = -1;
  for (unsigned i = 0; i < kinds.size(); ++i)
    if (kinds[i] == ir::PositionKind::LINE) linePos = static_cast<int>(i);
  DecodedContexts contexts(root.getContexts(), strings.size());

  std::string out;  // handed to `sink` by flushIfFull
  const bool own = root.getFormat() == ir::Format::CACHEGRIND;
  std::vector<uint64_t> totals(events.size(), 0);
  std::vector<std::string> trailer;
  bool wroteHeader = false;
  for (auto part : root.getParts()) {
    CostTableBatches t(part.getCosts(), kinds.size(), events.size(), contexts.size(),
                       /*withPositions=*/true);
    if (!wroteHeader) {
      wroteHeader = true;
      bool haveEvents = false;
      if (own) {
        trailer = writeHeaderLines(part, out);
        for (auto l : part.getHeaderLines())
          haveEvents |=
              l.getPlacement() == ir::HeaderLine::Placement::HEADER && l.getKey() == "events";
      } else {
        // From another format: keep what Cachegrind has a place for, in its order (desc:
        // lines, then one cmd:; cg_annotate rejects other orders).
        bool haveCmd = false;
        for (const char* key : {"desc", "cmd"})
          for (auto l : part.getHeaderLines())
            if (l.getKey() == key && !(l.getKey() == "cmd" && haveCmd)) {
              haveCmd |= l.getKey() == "cmd";
              out += key;
              out += ": ";
              out += l.getValue().cStr();
              endLine(out);
            }
      }
      if (!haveEvents) {
        out += "events:";
        for (auto e : events) (out += ' ') += e.getName().cStr();
        endLine(out);
      }
    }
    // 0 is "no fl= yet": a file whose first count lines precede any fl= keeps that shape.
    uint64_t curFile = 0, curFn = ~uint64_t{0};
    while (t.next()) {
      size_t ci = 0;
      for (size_t r = 0; r < t.rows; ++r) {
        size_t n = t.costCount[r];
        const uint64_t* c = t.costs.data() + ci;
        ci += n;
        if (t.kind[r] != static_cast<uint64_t>(ir::RecordKind::COST)) continue;  // no calls here
        uint64_t ctx = t.context[r];
        uint64_t file = t.sourceFile[r] ? t.sourceFile[r] : contexts.file[ctx];
        uint64_t fn = contexts.function[ctx];
        if (file != curFile) {
          out += "fl=";
          out += strings.get(file);
          endLine(out);
          curFile = file;
          curFn = ~uint64_t{0};
        }
        if (fn != curFn) {
          out += "fn=";
          out += strings.get(fn);
          endLine(out);
          curFn = fn;
        }
        appendDecimal(out, linePos >= 0 ? t.positions[static_cast<size_t>(linePos)][r] : 0);
        for (size_t i = 0; i < n; ++i) {
          out += ' ';
          appendDecimal(out, c[i]);
          totals[i] += c[i];
        }
        endLine(out);
      }
      flushIfFull(out, sink);
    }
  }
  if (own) {
    // Exactly the trailer the file had (a file without summary: stays without one).
    for (auto& l : trailer) endLine(out += l);
  } else {
    out += "summary:";
    for (uint64_t v : totals) {
      out += ' ';
      appendDecimal(out, v);
    }
    endLine(out);
  }
  sink.write(out);
}

}  // namespace profpack
