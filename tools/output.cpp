// The CLI's errors, warnings and cost formatting, as text or (--json) JSON.

#include <cstdio>
#include <string_view>

#include "cli.h"

namespace cli {

namespace {

void printError(const Invocation& s, const char* status, int code, const std::string& message,
                const char* format, uint64_t offset, uint64_t line, const std::string& context) {
  Json j;
  j.object().key("error").object();
  j.key("status").str(status);
  j.key("code");  // the C API's profpack_status; null for usage errors and "not found"
  code >= 0 ? j.integer(static_cast<uint64_t>(code)) : j.null();
  j.key("message").str(message);
  j.key("context").str(context);
  j.key("format").str(format);
  j.key("offset");
  offset == PROFPACK_UNKNOWN_POSITION ? j.null() : j.integer(offset);
  j.key("line");
  line == PROFPACK_UNKNOWN_POSITION ? j.null() : j.integer(line);
  j.end().key("warnings").array();
  for (const std::string& w : s.warnings) j.str(w);
  j.end().end();
  std::fprintf(stderr, "%s\n", j.text().c_str());
}

std::string grouped(uint64_t v) {  // 1,234,567
  std::string d = std::to_string(v), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

}  // namespace

int failure(Invocation& s, const std::string& context, const std::string& message) {
  if (s.json) {
    printError(s, "not found", -1, message, "", PROFPACK_UNKNOWN_POSITION,
               PROFPACK_UNKNOWN_POSITION, context);
  } else {
    std::fprintf(stderr, "profpack: %s: %s\n", context.c_str(), message.c_str());
  }
  return 1;
}

int failWith(Invocation& s, const char* context) {
  const profpack_error* e = profpack_last_error();
  if (s.json) {
    printError(s, profpack_status_name(e->code), e->code, e->message, e->format, e->offset, e->line,
               context);
    return 1;
  }
  // A read error names its file already.
  const std::string_view m(e->message), c(context);
  const bool named = m.size() > c.size() && m.substr(0, c.size()) == c && m[c.size()] == ':';
  std::fprintf(stderr, "profpack: %s%s%s\n", named ? "" : context, *context && !named ? ": " : "",
               e->message);
  return 1;
}

int usageError(Invocation& s, const std::string& message) {
  if (s.json) {
    printError(s, "usage error", -2, message, "", PROFPACK_UNKNOWN_POSITION,
               PROFPACK_UNKNOWN_POSITION, "");
    return 2;
  }
  std::fprintf(stderr, "profpack: %s (see profpack --help)\n", message.c_str());
  return 2;
}

void printWarnings(Invocation& s, profpack_profile* p, const std::string& file) {
  size_t n = 0;
  if (profpack_profile_warnings(p, nullptr, 0, &n) != PROFPACK_OK) return;
  std::vector<const char*> list(n);
  if (profpack_profile_warnings(p, list.data(), list.size(), &n) != PROFPACK_OK) return;
  for (const char* w : list) {
    if (s.json)
      s.warnings.push_back(file + ": " + w);
    else
      std::fprintf(stderr, "profpack: %s: warning: %s\n", file.c_str(), w);
  }
}

void jsonWarnings(const Invocation& s, Json& j) {
  j.key("warnings").array();
  for (const std::string& w : s.warnings) j.str(w);
  j.end();
}

void printJson(const Json& j) { std::printf("%s\n", j.text().c_str()); }

std::vector<profpack_event> eventsOf(profpack_profile* p) {
  size_t n = 0;
  if (profpack_profile_events(p, nullptr, 0, &n) != PROFPACK_OK) return {};
  std::vector<profpack_event> ev(n);
  if (profpack_profile_events(p, ev.data(), ev.size(), &n) != PROFPACK_OK) return {};
  ev.resize(std::min(n, ev.size()));
  return ev;
}

bool Costs::negative(uint64_t v) const {
  if (int64_t(v) >= 0 || !p_) return false;
  if (signed_ < 0) {
    profpack_info info;
    profpack_info_init(&info);
    signed_ = profpack_profile_info(p_, &info) == PROFPACK_OK && info.signed_costs;
  }
  return signed_ == 1;
}

double Costs::value(uint64_t v) const { return negative(v) ? double(int64_t(v)) : double(v); }

std::string Costs::digits(uint64_t v) const {
  return negative(v) ? "-" + std::to_string(~v + 1) : std::to_string(v);
}

std::string Costs::commas(uint64_t v) const {
  return negative(v) ? "-" + grouped(~v + 1) : grouped(v);
}

void Costs::jsonEvents(Json& j) const {
  j.key("events").array();
  for (const profpack_event& e : eventsOf(p_)) {
    j.object().key("name").str(e.name).key("long_name").str(e.long_name);
    j.key("total").integer(digits(e.total)).end();
  }
  j.end();
}

}  // namespace cli
