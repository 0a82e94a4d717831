// Cachegrind text format (cachegrind-manual.xml, "Cachegrind Output File Format"): the writer.
// A Cachegrind profile is written back as read; a Callgrind profile as its self costs per line
// (cost rows only: call rows hold inclusive costs), with the summary of those costs.

#include <string>
#include <vector>

#include "error.h"
#include "formats/cachegrind/cachegrind.h"
#include "formats/callgrind/costs.h"
#include "formats/callgrind/model.h"
#include "util/text.h"

namespace profpack {

namespace {
constexpr const char* kFmt = "cachegrind";
}  // namespace

std::string writeCachegrind(const Profile& profile) {
  StringSink out;
  writeCachegrind(profile, out);
  return std::move(out.out);
}

namespace {

// The header of the file: a Cachegrind profile's own header lines, else what Cachegrind has a
// place for; then events: unless the header had it. Returns a Cachegrind profile's trailer.
std::vector<std::string> writeHeader(ir::Part::Reader part,
                                     capnp::List<ir::EventType>::Reader events, bool own,
                                     std::string& out) {
  std::vector<std::string> trailer;
  bool haveEvents = false;
  if (own) {
    trailer = writeHeaderLines(part, out);
    for (auto l : part.getHeaderLines())
      haveEvents |= l.getPlacement() == ir::HeaderLine::Placement::HEADER && l.getKey() == "events";
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
  return trailer;
}

// The rows whose text the file had otherwise than this writer writes it (Part.verbatimRows),
// checked against the part's rows and its verbatim texts.
std::vector<uint64_t> verbatimRowsOf(ir::Part::Reader part) {
  if (!part.hasVerbatimRows()) return {};
  std::vector<uint64_t> rows = decodeColumn(part.getVerbatimRows());
  if (rows.size() != part.getVerbatimText().size())
    throw Error(Status::malformed, "ppk", "Cachegrind verbatim rows and texts differ in number");
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i] > part.getCosts().getRows() || (i > 0 && rows[i] <= rows[i - 1]))
      throw Error(Status::malformed, "ppk", "Cachegrind verbatim rows out of order or range");
  return rows;
}

}  // namespace

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
  const bool isSigned = root.getSignedCosts();
  std::vector<uint64_t> totals(events.size(), 0);
  std::vector<std::string> trailer;
  bool wroteHeader = false;
  for (auto part : root.getParts()) {
    CostTableBatches t(part.getCosts(), kinds.size(), events.size(), contexts.size(),
                       /*withPositions=*/true);
    if (!wroteHeader) {
      wroteHeader = true;
      trailer = writeHeader(part, events, own, out);
    }
    // 0 is "no fl= yet": a file whose first count lines precede any fl= keeps that shape.
    uint64_t curFile = 0, curFn = ~uint64_t{0};
    // Rows whose text the file had otherwise than this writer writes it (Part.verbatimRows).
    const std::vector<uint64_t> verbatimRows = own ? verbatimRowsOf(part) : std::vector<uint64_t>();
    auto verbatimText = part.getVerbatimText();
    size_t nextVerbatim = 0;
    uint64_t row = 0;
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
        if (nextVerbatim < verbatimRows.size() && verbatimRows[nextVerbatim] == row) {
          auto bytes = verbatimText[static_cast<unsigned>(nextVerbatim++)];
          out.append(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
          for (size_t i = 0; i < n; ++i) totals[i] += c[i];
          curFile = file;
          curFn = fn;
          ++row;
          continue;
        }
        ++row;
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
          appendCost(out, c[i], isSigned);
          totals[i] += c[i];
        }
        // A Callgrind row leaves out its trailing zeros; Cachegrind writes every event, and
        // cg_annotate warns of each function whose rows all leave one out ("Use of
        // uninitialized value", 50 times for a --cache-sim=yes --branch-sim=yes profile).
        if (!own)
          for (size_t i = n; i < events.size(); ++i) out += " 0";
        endLine(out);
      }
      flushIfFull(out, sink);
    }
    if (nextVerbatim < verbatimRows.size()) {  // the text after the last row
      auto bytes = verbatimText[static_cast<unsigned>(nextVerbatim)];
      out.append(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
    }
  }
  if (own) {
    // Exactly the trailer the file had (a file without summary: stays without one), its last
    // line without a newline if it had none.
    const bool unterminated = root.getParts()[0].getLastTrailerUnterminated();
    for (size_t i = 0; i < trailer.size(); ++i) {
      out += trailer[i];
      if (i + 1 < trailer.size() || !unterminated) endLine(out);
    }
  } else {
    out += "summary:";
    for (uint64_t v : totals) {
      out += ' ';
      appendCost(out, v, isSigned);
    }
    endLine(out);
  }
  sink.write(out);
}

}  // namespace profpack

namespace profpack {

HeaderPairs cachegrindDifferenceHeader(const Model& base, const std::string& baseName,
                                       const Model& current, const std::string& currentName) {
  std::string cmd[2];
  const Model* models[2] = {&base, &current};
  for (size_t i = 0; i < 2; ++i)
    for (const auto& [key, value] : models[i]->description())
      if (key == "cmd") cmd[i] = std::string(trim(value));
  return {{"desc", "Files compared:   " + baseName + "; " + currentName},
          {"cmd", cmd[0] + "; " + cmd[1]}};
}

void writeCachegrindModel(const Model& m, Sink& sink) {
  if (!m.has(kCapLines))
    throw Error(Status::unsupported, "cachegrind",
                m.sourceFormat() + " holds no source lines, and Cachegrind's costs are per line");
  if (m.events() == 0)
    throw Error(Status::unsupported, "cachegrind", m.sourceFormat() + " holds no cost events");
  std::string out;
  // desc lines, then cmd: the order cg_annotate reads.
  for (const auto& [key, value] : m.description())
    if (key == "desc") out += "desc: " + value + "\n";
  if (std::string base = baseTotalsDesc(m); !base.empty()) out += "desc: " + base + "\n";
  // cg_annotate refuses a file without its cmd: line; a source that records no command still
  // gets one, saying so.
  bool cmd = false;
  for (const auto& [key, value] : m.description())
    if (key == "cmd" && !cmd) {
      out += "cmd: " + value + "\n";
      cmd = true;
    }
  if (!cmd) out += "cmd: (a " + m.sourceFormat() + " profile, which records no command)\n";
  out += "events:";
  for (const std::string& e : m.eventNames()) out += ' ' + e;
  out += '\n';
  const FunctionLineLayer& fl = m.functionLines();
  const size_t ne = m.events();
  const bool isSigned = m.has(kCapSigned);
  // A function's self cost its lines do not hold (addresses no line table covers: a stripped
  // library, the kernel) goes on its line 0, as Cachegrind writes costs of no known line, so
  // that the rows add up to the summary.
  const size_t nf = m.functions();
  std::vector<uint64_t> unlined(nf * ne, 0);
  for (size_t f = 0; f < nf; ++f)
    for (size_t e = 0; e < ne; ++e) unlined[f * ne + e] = m.self(f, e);
  for (size_t r = 0; r < fl.rows.size(); ++r)
    if (fl.rows[r].function < nf)
      for (size_t e = 0; e < ne; ++e) unlined[fl.rows[r].function * ne + e] -= fl.self[r * ne + e];
  auto anyUnlined = [&](uint64_t f) {
    for (size_t e = 0; e < ne; ++e)
      if (unlined[f * ne + e] != 0) return true;
    return false;
  };
  std::string file;
  bool first = true;
  auto startFunction = [&](uint64_t function) {
    const FunctionRow& fn = m.function(function);
    const std::string f = fn.file.empty() ? std::string("???") : withoutLineBreaks(fn.file);
    if (first || f != file) out += "fl=" + f + "\n";
    first = false;
    file = f;
    out += "fn=" + withoutLineBreaks(fn.name) + "\n";
  };
  auto row = [&](uint64_t line, const uint64_t* costs) {
    appendDecimal(out, line);
    for (size_t e = 0; e < ne; ++e) {
      out += ' ';
      appendCost(out, costs[e], isSigned);
    }
    out += '\n';
    flushIfFull(out, sink);
  };
  std::vector<bool> written(nf, false);
  uint64_t function = ~uint64_t{0};
  for (size_t r = 0; r < fl.rows.size(); ++r) {
    if (fl.rows[r].function != function) {
      function = fl.rows[r].function;
      startFunction(function);
      if (function < nf && !written[function] && anyUnlined(function))
        row(0, unlined.data() + function * ne);
      if (function < nf) written[function] = true;
    }
    row(fl.rows[r].line, fl.self.data() + r * ne);
  }
  for (size_t f = 0; f < nf; ++f)
    if (!written[f] && anyUnlined(f)) {
      startFunction(f);
      row(0, unlined.data() + f * ne);
    }
  out += "summary:";
  for (size_t e = 0; e < ne; ++e) {
    out += ' ';
    appendCost(out, m.total(e), isSigned);
  }
  out += '\n';
  sink.write(std::move(out));
}

}  // namespace profpack
