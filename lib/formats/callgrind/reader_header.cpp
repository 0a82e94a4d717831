// The Callgrind reader's header lines, its checks at the end of the input and the building of
// its IR (reader.cpp parses the body lines).

#include <exception>
#include <system_error>
#include <thread>

#include "formats/callgrind/reader.h"

namespace profpack::callgrind::reading {

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
  newTable();
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
    newTable();
  } else if (key == "events") {
    std::vector<std::string> ev;
    for (std::string_view w : words(value)) ev.emplace_back(w);
    if (ev.empty()) error(at, "events: line names no events");
    if (haveEvents_ && ev != events_)
      error(at, "events: differs from an earlier part's; profpack keeps one list per profile");
    events_ = std::move(ev);
    haveEvents_ = true;
    costBuf_.assign(events_.size(), 0);
    sums_->sums.events = events_.size();  // before any row: cost lines need the events
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

// At the end of the input: no association left without its cost line, the last lines after a
// body kept as trailer lines, the events known, and every summary:/totals: line well formed.
void Reader::finish() {
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
}

// The IR message of everything read.
std::unique_ptr<Profile> Reader::build() {
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
  buildEvents(root);
  auto kinds = root.initPositionKinds(static_cast<unsigned>(kinds_.size()));
  for (size_t i = 0; i < kinds_.size(); ++i) kinds.set(static_cast<unsigned>(i), kinds_[i]);
  contexts_.build(root.initContexts(), remap);
  for (size_t pi = 0; pi < parts_.size(); ++pi) {
    parts_[pi].table->buildSourceFiles(parts[static_cast<unsigned>(pi)].getCosts(), remap);
    parts_[pi].table.reset();
  }
  auto profile = std::make_unique<Profile>(std::move(message));
  sums_->sums.renumberFiles(remap);
  profile->keepDecoded(std::move(sums_));
  return profile;
}

// The events, with their long names, and the derived events with their formulas.
void Reader::buildEvents(ir::Profile::Builder root) const {
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
}

}  // namespace profpack::callgrind::reading
