#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

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

// `units` event units as microseconds, to the nanosecond.
// Integer arithmetic: printf's %f costs a quarter of a conversion's time.
void appendMicroseconds(std::string& out, uint64_t units, double perSecond) {
  const long double ns = static_cast<long double>(units) * 1e9L / perSecond;
  const uint64_t thousandths = ns < 1.8e19L ? static_cast<uint64_t>(ns + 0.5L) : UINT64_MAX;
  appendDecimal(out, thousandths / 1000);
  const unsigned frac = static_cast<unsigned>(thousandths % 1000);
  out += '.';
  out += static_cast<char>('0' + frac / 100);
  out += static_cast<char>('0' + frac / 10 % 10);
  out += static_cast<char>('0' + frac % 10);
}

}  // namespace

void writeTraceEvents(const Model& model, Sink& out) {
  if (!model.has(kCapTimeline))
    throw Error(Status::unsupported, "trace-event",
                model.sourceFormat() + " holds no timeline (when each call began and ended)");
  const double perSecond = model.unitsPerSecond();
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
  auto ids = [&](uint32_t thread) {
    const ThreadRow t = thread < threads.size() ? threads[thread] : ThreadRow{};
    text += ",\"pid\":";
    appendDecimal(text, t.pid);
    text += ",\"tid\":";
    appendDecimal(text, t.threadId);
  };
  for (size_t t = 0; t < threads.size(); ++t) {
    text += first ? "\n" : ",\n";
    first = false;
    text += "{\"name\":\"thread_name\",\"ph\":\"M\"";
    ids(static_cast<uint32_t>(t));
    text += ",\"args\":{\"name\":\"thread ";
    appendDecimal(text, threads[t].threadId);
    text += "\"}}";
  }
  // The spans as the model streams them (never all in memory: a long trace has millions).
  struct Writer : SpanSink {
    std::function<void(const Span&)> f;
    void span(const Span& s) override { f(s); }
  } writer;
  writer.f = [&](const Span& s) {
    text += first ? "\n" : ",\n";
    first = false;
    text += "{\"name\":";
    text += names[s.function];
    text += ",\"ph\":\"X\",\"ts\":";
    appendMicroseconds(text, s.begin >= origin ? s.begin - origin : 0, perSecond);
    text += ",\"dur\":";
    appendMicroseconds(text, s.end - s.begin, perSecond);
    ids(s.thread);
    text += '}';
    flushIfFull(text, out);
  };
  model.spans(writer);
  text += "\n],\"displayTimeUnit\":\"ns\"}\n";
  out.write(text);
}

}  // namespace profpack
