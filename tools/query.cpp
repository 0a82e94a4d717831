// The query commands' shared parts (query.h).

#include "query.h"

#include <algorithm>
#include <climits>

namespace cli {

int parseQuery(Invocation& s, const std::vector<std::string>& argv, QueryArgs& q, const char* cmd,
               bool wantFn) {
  Args& args = q.args;
  if (int rc = parseArgs(s, cmd, argv, args)) return rc;
  q.event = args.get("--event");
  q.binary = args.get("--binary");
  q.source = args.get("--source");
  q.inclusive = args.has("--inclusive");
  q.tsv = args.has("--tsv");
  if (args.has("--thread") && (q.thread = number(args.get("--thread"), 0, LONG_MAX)) < 0)
    return usageError(s, "--thread needs a thread index (see profpack info)");
  if (args.has("-n")) {
    const long n = number(args.get("-n"), 1, LONG_MAX);
    if (n < 0) return usageError(s, "-n needs a positive number");
    q.n = static_cast<size_t>(n);
  }
  if (args.positional.empty()) return usageError(s, std::string(cmd) + " needs a profile file");
  q.files = args.positional;
  if (wantFn && q.files.size() > 1) {
    q.function = q.files.back();
    q.files.pop_back();
  }
  q.file = q.files[0];
  return 0;
}

int openQuery(Invocation& s, const QueryArgs& q, Profile& p, size_t& event,
              std::string& eventName) {
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  SymbolizeOnRead naming;
  naming.apply(q.args, ro);
  if (readInputs(q.files, &ro, &p.p) != PROFPACK_OK) return failWith(s, q.file.c_str());
  printWarnings(s, p.p, q.file);
  if (wantsView(q.args) && view(p, q.binary, q.thread, q.args) != PROFPACK_OK)
    return failWith(s, q.binary.empty() || q.thread >= 0 || q.args.has("--tag") ? q.file.c_str()
                                                                                : q.binary.c_str());
  size_t n = 0;
  if (profpack_profile_events(p.p, nullptr, 0, &n) != PROFPACK_OK)
    return failWith(s, q.file.c_str());
  if (n == 0) return failure(s, q.file, "the profile has no cost events");
  event = 0;
  if (!q.event.empty() && profpack_profile_event_index(p.p, q.event.c_str(), &event) != PROFPACK_OK)
    return failWith(s, q.file.c_str());
  std::vector<profpack_event> ev(n);
  profpack_profile_events(p.p, ev.data(), n, &n);
  eventName = ev[event].name;
  return 0;
}

std::string functionLabel(profpack_profile* p, size_t id) {
  profpack_function f;
  if (profpack_profile_function(p, id, &f) != PROFPACK_OK) return "?";
  uint64_t line = 0;
  profpack_profile_function_line(p, id, &line);
  std::string label =
      *f.file ? std::string(f.file) + ":" + (line ? std::to_string(line) + ":" : "") + f.name
              : f.name;
  if (*f.object) label += std::string(" [") + f.object + "]";
  return label;
}

void jsonFunction(Json& j, profpack_profile* p, size_t id) {
  profpack_function f{"", "", ""};
  profpack_profile_function(p, id, &f);
  uint64_t line = 0;
  profpack_profile_function_line(p, id, &line);
  j.key("id").integer(id).key("name").str(f.name).key("file").str(f.file);
  j.key("line").integer(line).key("object").str(f.object);
}

void jsonQueryHead(Json& j, const QueryArgs& q, const std::string& event) {
  j.object().key("file").str(q.file).key("event").str(event).key("thread");
  q.thread >= 0 ? j.integer(static_cast<uint64_t>(q.thread)) : j.null();
}

bool arcs(profpack_profile* p, size_t id, size_t event, bool callers,
          std::vector<profpack_call>& out) {
  auto fn = callers ? profpack_profile_callers : profpack_profile_callees;
  size_t n = 0;
  out.clear();
  if (fn(p, id, event, nullptr, 0, &n) != PROFPACK_OK) return false;
  out.resize(n);
  if (fn(p, id, event, out.data(), n, &n) != PROFPACK_OK) return false;
  out.resize(std::min(n, out.size()));
  return true;
}

bool isRecursive(profpack_profile* p, size_t id, size_t event, bool& out) {
  std::vector<profpack_call> callees;
  if (!arcs(p, id, event, false, callees)) return false;
  out = std::any_of(callees.begin(), callees.end(),
                    [&](const profpack_call& c) { return c.function == id; });
  return true;
}

}  // namespace cli
