#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "error.h"
#include "formats/trace_event/trace_event.h"
#include "util/text.h"

namespace profpack {

namespace {

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

  for (size_t t = 0; t < threads.size(); ++t) {
    text += first ? "\n" : ",\n";
    first = false;
    text += "{\"name\":\"thread_name\",\"ph\":\"M\"";
    text += ids[t];
    text += ",\"args\":{\"name\":\"thread ";
    text += std::to_string(shownId(threads[t].threadId));
    text += "\"}}";
  }
  // The spans as the model streams them (never all in memory: a long trace has millions).
  struct Writer : SpanSink {
    std::string& text;
    Sink& out;
    const std::vector<std::string>& names;
    const std::vector<std::string>& ids;
    const Microseconds& us;
    uint64_t origin;
    bool& first;
    Writer(std::string& t, Sink& o, const std::vector<std::string>& n,
           const std::vector<std::string>& i, const Microseconds& u, uint64_t org, bool& f)
        : text(t), out(o), names(n), ids(i), us(u), origin(org), first(f) {}
    void span(const Span& s) override {
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
  const Microseconds us(perSecond);
  Writer writer(text, out, names, ids, us, origin, first);
  model.spans(writer);
  text += "\n],\"displayTimeUnit\":\"ns\"}\n";
  out.write(text);
}

}  // namespace profpack
