// Chrome Trace Event JSON (the Trace Event Format): `[event, ...]` (the closing bracket may be
// missing) or `{"traceEvents": [event, ...], ...}`. Each event is an object; of its members
// ph, name, ts, dur, pid, tid and args.name are read, the rest skipped. Times are microseconds,
// kept as nanoseconds (three decimals exactly; more are rounded).
//
// - "X" (complete): a span of `dur` from `ts` on thread (pid, tid);
// - "B"/"E" (begin/end): the format lets them come out of time order, so each thread's are
//   taken in time order (file order where times are equal, but ends before begins: see
//   pairSpans), and an E ends the thread's most recent open B, which makes a span; an E
//   without one, and a B never ended, are left out with a warning;
// - "M" (metadata): thread_name and process_name name threads; other metadata is ignored;
// - every other kind (instant, counter, async, flow, sample, object, mark, clock sync,
//   context) is skipped, with one warning per kind.
// Spans are kept in file order: an X where it stands, then each thread's B/E pairs in the order
// of their B (the model takes the earlier of two equal spans for the outer).

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "error.h"
#include "formats/calltree/calltree.h"
#include "formats/trace_event/trace_event.h"
#include "util/json.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "trace-event";

// A pid or tid: a number, a string of one (llvm-xray writes them so), or another string (a
// hash of it stands for it, the string names it).
int64_t readId(JsonReader& json, std::string& named) {
  if (json.peek() == '"') {
    const uint64_t at = json.offset();
    const std::string_view s = json.string();
    int64_t v = 0;
    if (JsonNumber n; jsonNumberText(s, n)) {
      if (!n.scaled(0, v)) json.fail(at, "a pid or tid out of range");
      return v;
    }
    uint32_t h = 2166136261u;
    for (unsigned char c : s) h = (h ^ c) * 16777619u;
    named = s;
    return h;
  }
  if (json.isNull()) return 0;
  int64_t v = 0;
  if (!json.number().scaled(0, v)) json.failHere("a pid or tid out of range");
  return v;
}

struct Reader {
  JsonReader json;
  CallTreeBuilder tree;
  std::string name, argName, ph, pidName, tidName;
  std::map<std::string, uint64_t> skipped;  // kind -> events
  // Per thread, its B and E events in file order (kept until the end: they may come out of
  // time order); per event name of a B, its frame.
  struct Mark {
    int64_t ts;
    uint64_t frame;  // a B's; an E's name's where a B has that name, else kNoFrame
    bool end;
  };
  static constexpr uint64_t kNoFrame = ~uint64_t{0};
  std::vector<std::vector<Mark>> marks;
  std::unordered_map<std::string, uint64_t> frameOfName;
  uint64_t unended = 0;
  std::vector<bool> named;  // per thread: a thread_name event names it (not its tid string)
  std::unordered_map<int64_t, std::string> processNames;
  uint64_t unmatchedEnds = 0, badDurations = 0, events = 0;
  bool inEvent = false;  // reading an event (not between two)

  Reader(std::span<const uint8_t> data) : json(data, kFmt) {}

  int64_t time(const JsonNumber& n) {
    int64_t v = 0;
    if (!n.scaled(3, v)) json.failHere("a time beyond 2^63 nanoseconds");
    return v;
  }
  // A time: a number, or a string of one (llvm-xray writes "ts" so; Perfetto reads it).
  int64_t timeValue() {
    if (json.peek() != '"') return time(json.number());
    const uint64_t at = json.offset();
    const std::string_view s = json.string();
    JsonNumber n;
    if (!jsonNumberText(s, n))
      json.fail(at, "expected a time (a number, or a string of one), found \"" +
                        std::string(s.substr(0, 24)) + "\"");
    return time(n);
  }

  void event() {
    const uint64_t at = json.offset();
    name.clear();
    argName.clear();
    ph.clear();
    pidName.clear();
    tidName.clear();
    bool havePh = false, haveTs = false;
    int64_t ts = 0, dur = 0, pid = 0, tid = 0;
    std::string_view key;
    if (json.peek() != '{') json.failHere("expected a trace event (a JSON object)");
    json.beginObject();
    while (json.member(key)) {
      if (key == "ph") {
        ph = json.string();
        havePh = true;
      } else if (key == "name") {
        if (json.peek() == '"')
          name = json.string();
        else
          json.skip();
      } else if (key == "ts") {
        ts = timeValue();
        haveTs = true;
      } else if (key == "dur") {
        dur = timeValue();
      } else if (key == "pid") {
        pid = readId(json, pidName);
      } else if (key == "tid") {
        tid = readId(json, tidName);
      } else if (key == "args" && json.peek() == '{') {
        json.beginObject();
        while (json.member(key))
          if (key == "name" && json.peek() == '"')
            argName = json.string();
          else
            json.skip();
      } else {
        json.skip();
      }
    }
    if (!havePh) json.fail(at, "a trace event without \"ph\" (its phase)");
    ++events;
    const char kind = ph.size() == 1 ? ph[0] : '?';
    if (kind == 'M') return metadata(pid, tid);
    if (kind != 'X' && kind != 'B' && kind != 'E') {
      ++skipped[ph];
      return;
    }
    if (!haveTs) json.fail(at, "a \"" + ph + "\" event without \"ts\"");
    const uint32_t t = thread(pid, tid);
    if (kind == 'X') {
      if (dur < 0 || static_cast<uint64_t>(dur) > kMaxSpanUnits) {
        ++badDurations;
        return;
      }
      tree.span(t, tree.frame(name), ts, static_cast<uint64_t>(dur));
      return;
    }
    if (marks.size() <= t) marks.resize(t + 1);
    uint64_t frame = kNoFrame;
    if (kind == 'B') {
      auto [it, added] = frameOfName.try_emplace(name, 0);
      if (added) it->second = tree.frame(name);
      frame = it->second;
    } else if (!name.empty()) {
      auto it = frameOfName.find(name);
      if (it != frameOfName.end()) frame = it->second;
    }
    marks[t].push_back({ts, frame, kind == 'E'});
  }

  // One thread's B and E events as spans, in the order of their B. Sorted by time, stably (n log
  // n; the format lets a file list them out of order, and speedscope sorts them so too); at
  // equal times ends come before begins, as speedscope takes them: a span that ends as another
  // begins is its sibling, not its caller. But an E that names a B of its time before it in
  // the file ends that B (a span of no duration), so keeps its place after it; an E without a
  // name cannot say so, and goes first.
  void pairSpans(uint32_t t, std::vector<Mark>& m) {
    std::stable_sort(m.begin(), m.end(), [](const Mark& a, const Mark& b) { return a.ts < b.ts; });
    std::unordered_set<uint64_t> begun;  // the frames of a time's B events so far
    std::vector<std::pair<uint8_t, Mark>> group;
    for (size_t i = 0, j; i < m.size(); i = j) {
      bool anyBegin = false, mixed = false;  // an E after a B of the same time
      for (j = i; j < m.size() && m[j].ts == m[i].ts; ++j) {
        mixed |= anyBegin && m[j].end;
        anyBegin |= !m[j].end;
      }
      if (!mixed) continue;
      // Rank: 0 for an E to go first, 1 for the rest (kept in file order).
      begun.clear();
      group.clear();
      for (size_t k = i; k < j; ++k) {
        const bool late = m[k].end ? m[k].frame != kNoFrame && begun.count(m[k].frame) : true;
        if (!m[k].end) begun.insert(m[k].frame);
        group.push_back({late ? 1 : 0, m[k]});
      }
      std::stable_sort(group.begin(), group.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t k = i; k < j; ++k) m[k] = group[k - i].second;
    }
    struct Pair {
      uint64_t frame;
      int64_t begin, end;
      bool ended;
    };
    std::vector<Pair> pairs;  // per B in time order
    std::vector<size_t> open;
    for (const Mark& k : m) {
      if (!k.end) {
        open.push_back(pairs.size());
        pairs.push_back({k.frame, k.ts, k.ts, false});
      } else if (open.empty()) {
        ++unmatchedEnds;
      } else {
        pairs[open.back()].end = k.ts;
        pairs[open.back()].ended = true;
        open.pop_back();
      }
    }
    unended += open.size();
    for (const Pair& p : pairs) {
      if (!p.ended) continue;
      const uint64_t d = static_cast<uint64_t>(p.end) - static_cast<uint64_t>(p.begin);
      if (d > kMaxSpanUnits)
        ++badDurations;
      else
        tree.span(t, p.frame, p.begin, d);
    }
    std::vector<Mark>().swap(m);
  }

  uint32_t thread(int64_t pid, int64_t tid) {
    const uint32_t t = tree.thread(pid, tid);
    if (named.size() <= t) named.resize(t + 1, false);
    if (!tidName.empty() && !named[t]) tree.nameThread(t, tidName);
    if (!pidName.empty()) processNames.emplace(pid, pidName);
    return t;
  }

  void metadata(int64_t pid, int64_t tid) {
    if (name == "thread_name") {
      const uint32_t t = thread(pid, tid);
      tree.nameThread(t, argName);
      named[t] = true;
    }
    else if (name == "process_name")
      processNames[pid] = argName;
  }

  void events_() {
    json.beginArray();
    while (json.element()) {
      inEvent = true;
      event();
      inEvent = false;
    }
  }

  // The document: an array of events, or an object whose "traceEvents" member is one.
  void document() {
    const char c = json.peek();
    if (c == '[') {
      events_();
      json.expectEnd();
      return;
    }
    bool found = false;
    std::string_view key;
    json.beginObject();
    while (json.member(key)) {
      if (key == "traceEvents") {
        events_();
        found = true;
      } else if (key == "nodes" && !found) {
        json.fail(0, "a V8 CPU profile (\"nodes\"), not a trace: read it as cpuprofile");
      } else {
        json.skip();
      }
    }
    json.expectEnd();
    if (!found)
      json.fail(0,
                "a JSON object without \"traceEvents\" (a Chrome trace) or \"nodes\" (a V8 "
                ".cpuprofile): not a profile profpack reads");
  }
};

const char* kindName(const std::string& ph) {
  static const std::pair<const char*, const char*> kinds[] = {
      {"i", "instant"}, {"I", "instant"},     {"C", "counter"},     {"b", "async"},
      {"e", "async"},   {"n", "async"},       {"S", "async"},       {"T", "async"},
      {"p", "async"},   {"F", "async"},       {"s", "flow"},        {"t", "flow"},
      {"f", "flow"},    {"P", "sample"},      {"O", "object"},      {"N", "object"},
      {"D", "object"},  {"R", "mark"},        {"c", "clock sync"},  {"(", "context"},
      {")", "context"}, {"v", "memory dump"}, {"V", "memory dump"},
  };
  for (const auto& [p, n] : kinds)
    if (ph == p) return n;
  return "unknown";
}

}  // namespace

bool isTraceEvent(std::span<const uint8_t> data) {
  JsonReader json(data.subspan(0, std::min<size_t>(data.size(), 4096)), kFmt);
  char c = '\0';
  try {
    c = json.peek();
  } catch (const Error&) {  // a NUL byte first: not JSON text
    return false;
  }
  if (c != '{' && c != '[') return false;
  // The next significant character must continue JSON as a trace would: a member name, an
  // event object, or the end of an empty document.
  size_t at = json.offset() + 1;
  while (at < data.size() && at < 4096 &&
         (data[at] == ' ' || data[at] == '\t' || data[at] == '\n' || data[at] == '\r'))
    ++at;
  if (at >= data.size() || at >= 4096) return false;
  const char n = static_cast<char>(data[at]);
  return c == '{' ? n == '"' || n == '}' : n == '{' || n == ']';
}

std::unique_ptr<Profile> readTraceEvents(std::span<const uint8_t> data,
                                         const ReadOptions& options) {
  Reader r(data);
  std::vector<std::string> warnings;
  const bool array = r.json.peek() == '[';
  try {
    r.document();
  } catch (const JsonTruncated& e) {
    // The format lets an array trace end without its ']' (a process that stopped writing);
    // anything else cut short is a warning, the complete events kept.
    const bool bare = array && !r.inEvent;
    if (options.strict && !bare) throw;
    if (!bare)
      warnings.push_back("byte offset " + std::to_string(e.offset()) +
                         ": the trace ends early, inside its JSON; loaded the " +
                         std::to_string(r.events) + " events before");
  }
  for (const auto& [ph, count] : r.skipped)
    warnings.push_back("skipped " + std::to_string(count) + " " + kindName(ph) + " event" +
                       (count == 1 ? "" : "s") + " (ph \"" + ph + "\"): only complete (X) and " +
                       "begin/end (B/E) events are read");
  for (uint32_t t = 0; t < r.marks.size(); ++t) r.pairSpans(t, r.marks[t]);
  if (r.unmatchedEnds)
    warnings.push_back("skipped " + std::to_string(r.unmatchedEnds) +
                       " end (E) events without an open begin (B) event on their thread");
  if (r.unended)
    warnings.push_back("skipped " + std::to_string(r.unended) +
                       " begin (B) events that no end (E) event closes");
  if (r.badDurations)
    warnings.push_back("skipped " + std::to_string(r.badDurations) +
                       " events with a negative duration or one past 2^62 ns (146 years)");
  for (uint32_t t = 0; t < r.tree.threads(); ++t) {
    auto it = r.processNames.find(r.tree.threadPid(t));
    if (it != r.processNames.end()) r.tree.nameProcess(t, it->second);
  }
  r.tree.timeUnitsPerSecond = 1000000000;
  std::unique_ptr<Profile> profile =
      r.tree.build(ir::Format::TRACE_EVENT, array ? "array" : "object", data.size() / 4);
  profile->warnings() = std::move(warnings);
  return profile;
}

}  // namespace profpack
