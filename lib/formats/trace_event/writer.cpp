#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "error.h"
#include "formats/trace_event/trace_event.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr uint64_t kUnsetLevel = ~uint64_t{0};

// A JSON string literal of `s` (bytes that are not valid UTF-8 are passed through; names come
// from symbol tables and files, which are).
void appendJsonString(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// Event units as microseconds, to the nanosecond: "123.456". Integer arithmetic (printf's %f
// cost a quarter of a conversion's time): exact for a whole number of units per second (a
// cycle frequency), long double otherwise; rounded half up, saturating.
class Microseconds {
 public:
  explicit Microseconds(double perSecond) : perSecond_(perSecond) {
    if (perSecond >= 1 && perSecond <= 9.2e18 &&
        perSecond == static_cast<double>(static_cast<uint64_t>(perSecond)))
      whole_ = static_cast<uint64_t>(perSecond);
  }
  void append(std::string& out, uint64_t units) const {
    uint64_t ns;
    if (whole_ == 1000000000u) {
      ns = units;
    } else if (whole_ != 0) {
      const unsigned __int128 q = (static_cast<unsigned __int128>(units) * 2000000000u + whole_) /
                                  (2 * static_cast<unsigned __int128>(whole_));
      ns = q > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(q);
    } else {
      const long double v = static_cast<long double>(units) * 1e9L / perSecond_;
      ns = v < 1.8e19L ? static_cast<uint64_t>(v + 0.5L) : UINT64_MAX;
    }
    appendDecimal(out, ns / 1000);
    const unsigned frac = static_cast<unsigned>(ns % 1000);
    char d[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                 static_cast<char>('0' + frac % 10)};
    out.append(d, 4);
  }

 private:
  double perSecond_;
  uint64_t whole_ = 0;  // perSecond, when it is a whole number
};

// The spans as the model streams them (never all in memory: a long trace has millions).
// Viewers (and profpack's reader) nest two spans that begin together by their duration, and
// two equal in both by the order of the file, the earlier outside; so of spans that begin
// together the outer must come first. A model gives a thread's spans as they end, callees
// first: a span that may begin with its caller waits for it. Only the first of a caller's
// callees (and those beginning with it) can: one that begins later than an earlier sibling
// begins after the caller too, and is written at once. So what waits is one chain of first
// callees per stack: bounded by the stack's depth, not by the trace.
struct SpanWriter : SpanSink {
  struct Thread {
    std::vector<Span> waiting;     // in the order they came: a span's callees before it
    std::vector<uint64_t> levels;  // per depth: the begin of the first span since its caller
  };
  std::string& text;
  Sink& out;
  const std::vector<std::string>& names;
  const std::vector<std::string>& ids;
  const Microseconds& us;
  uint64_t origin;
  bool& first;
  bool asGiven = false;  // the source's order is outer first already
  std::vector<Thread> threads;
  SpanWriter(std::string& t, Sink& o, const std::vector<std::string>& n,
             const std::vector<std::string>& i, const Microseconds& u, uint64_t org, bool& f)
      : text(t), out(o), names(n), ids(i), us(u), origin(org), first(f) {}
  void outerFirst() override { asGiven = true; }
  void span(const Span& s) override {
    if (asGiven) return write(s);
    if (threads.size() <= s.thread) threads.resize(size_t{s.thread} + 1);
    Thread& t = threads[s.thread];
    // Its callees that wait: the last of the waiting, deeper than it.
    size_t callees = t.waiting.size();
    while (callees > 0 && t.waiting[callees - 1].depth > s.depth) --callees;
    bool wait = false;
    if (s.depth > 0) {
      if (t.levels.size() <= s.depth) t.levels.resize(size_t{s.depth} + 1, kUnsetLevel);
      if (t.levels[s.depth] == kUnsetLevel) t.levels[s.depth] = s.begin;
      wait = s.begin == t.levels[s.depth];
    }
    t.levels.resize(size_t{s.depth} + 1);  // deeper: its callees', done
    if (wait) {
      t.waiting.push_back(s);
      return;
    }
    write(s);
    release(t, callees);
  }
  // The waiting spans from `from` on, all inside the one just written, outer first.
  void release(Thread& t, size_t from) {
    std::stable_sort(t.waiting.begin() + static_cast<std::ptrdiff_t>(from), t.waiting.end(),
                     [](const Span& a, const Span& b) { return a.depth < b.depth; });
    for (size_t i = from; i < t.waiting.size(); ++i) write(t.waiting[i]);
    t.waiting.resize(from);
  }
  // Spans whose caller never came (a thread's stack cut short).
  void finish() {
    for (Thread& t : threads) release(t, 0);
  }
  void write(const Span& s) {
    text += first ? "\n" : ",\n";
    first = false;
    text += "{\"name\":";
    text += names[s.function];
    text += ",\"ph\":\"X\",\"ts\":";
    us.append(text, s.begin >= origin ? s.begin - origin : 0);
    text += ",\"dur\":";
    us.append(text, s.end - s.begin);
    text += ids[std::min<size_t>(s.thread, ids.size() - 1)];
    text += '}';
    flushIfFull(text, out);
  }
};

}  // namespace

void writeTraceEvents(const Model& model, Sink& out) {
  if (!model.has(kCapTimeline))
    throw Error(Status::unsupported, "trace-event",
                model.sourceFormat() + " holds no timeline (when each call began and ended)");
  const double perSecond = model.timelineUnitsPerSecond();
  if (!(perSecond > 0))
    throw Error(Status::unsupported, "trace-event",
                "the profile's time unit is unknown (no cycle frequency), so it has no "
                "microseconds to give");
  const uint64_t origin = model.timelineOrigin();
  const std::vector<ThreadRow>& threads = model.threads();
  std::vector<std::string> names(model.functions());
  for (size_t f = 0; f < names.size(); ++f) appendJsonString(names[f], model.function(f).name);
  std::string text = "{\"traceEvents\":[";
  bool first = true;
  // Each thread's ids as every event of it ends, ,"pid":P,"tid":T; the last for a thread index
  // out of range.
  std::vector<std::string> ids(threads.size() + 1);
  for (size_t t = 0; t <= threads.size(); ++t) {
    const ThreadRow row = t < threads.size() ? threads[t] : ThreadRow{};
    ids[t] = ",\"pid\":" + std::to_string(shownId(row.pid)) +
             ",\"tid\":" + std::to_string(shownId(row.threadId));
  }

  // A thread_name event per thread (its name, else "thread TID"), and a process_name event per
  // process the model names (the first of its threads' process names).
  auto metadata = [&](const char* what, size_t t, std::string_view name) {
    text += first ? "\n" : ",\n";
    first = false;
    text += "{\"name\":\"";
    text += what;
    text += "\",\"ph\":\"M\"";
    text += ids[t];
    text += ",\"args\":{\"name\":";
    appendJsonString(text, name);
    text += "}}";
  };
  std::unordered_set<uint32_t> namedProcesses;  // (a search of a list: quadratic in processes)
  for (size_t t = 0; t < threads.size(); ++t) {
    const ThreadRow& row = threads[t];
    if (!row.process.empty() && namedProcesses.insert(row.pid).second)
      metadata("process_name", t, row.process);
    metadata("thread_name", t,
             row.name.empty() ? "thread " + std::to_string(shownId(row.threadId)) : row.name);
  }
  // The spans as the model streams them (SpanWriter).
  const Microseconds us(perSecond);
  SpanWriter writer(text, out, names, ids, us, origin, first);
  model.spans(writer);
  writer.finish();
  text += "\n],\"displayTimeUnit\":\"ns\"}\n";
  out.write(text);
}

}  // namespace profpack
