// profpack info: what a profile holds.

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cli.h"

namespace cli {

namespace {

// A pid or thread id as perf prints it: an unknown one is -1.
long long shownId(uint32_t id) {
  return id == PROFPACK_UNKNOWN_ID ? -1 : static_cast<long long>(id);
}

int jsonInfo(Invocation& s, profpack_profile* p, const profpack_info& info,
             const std::string& file) {
  const Costs costs(p, info.signed_costs);
  Json j;
  j.object();
  j.key("file").str(file);
  j.key("format").str(profpack_format_name(info.format));
  j.key("format_version").str(info.format_version);
  j.key("ir_bytes").integer(info.ir_bytes);
  j.key("parts").integer(info.parts);
  j.key("records").integer(info.records);
  j.key("functions").integer(info.functions);
  j.key("files").integer(info.files);
  j.key("objects").integer(info.objects);
  j.key("signed_costs").boolean(info.signed_costs != 0);
  costs.jsonEvents(j);
  j.key("threads").array();
  size_t nt = 0;
  if (profpack_profile_threads(p, nullptr, 0, &nt) == PROFPACK_OK && nt > 0) {
    std::vector<profpack_thread> threads(nt);
    profpack_profile_threads(p, threads.data(), nt, &nt);
    for (size_t i = 0; i < threads.size() && i < nt; ++i)
      j.object()
          .key("index")
          .integer(i)
          .key("pid")
          .integer(std::to_string(shownId(threads[i].pid)))
          .key("thread_id")
          .integer(std::to_string(shownId(threads[i].thread_id)))
          .end();
  }
  j.end();
  printWarnings(s, p, file);
  jsonWarnings(s, j);
  printJson(j.end());
  return 0;
}

}  // namespace

int cmdInfo(Invocation& s, const std::vector<std::string>& argv) {
  Args parsed;
  if (int rc = parseArgs(s, "info", argv, parsed)) return rc;
  const std::vector<std::string>& args = parsed.positional;
  const std::string binary = parsed.get("--binary");
  if (args.empty()) return usageError(s, "info needs a profile file");
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  SymbolizeOnRead naming;
  naming.apply(parsed, ro);
  Profile p;
  if (readInputs(args, &ro, &p.p) != PROFPACK_OK) return failWith(s, args[0].c_str());
  if (wantsView(parsed) && view(p, binary, -1, parsed) != PROFPACK_OK)
    return failWith(s, parsed.has("--tag") ? args[0].c_str() : binary.c_str());
  profpack_info info;
  profpack_info_init(&info);
  if (profpack_profile_info(p.p, &info) != PROFPACK_OK) return failWith(s, args[0].c_str());
  if (s.json) return jsonInfo(s, p.p, info, args[0]);
  std::printf("format: %s", profpack_format_name(info.format));
  if (*info.format_version) std::printf(" (version %s)", info.format_version);
  std::printf("\nIR size: %llu bytes\n", (unsigned long long)info.ir_bytes);
  std::printf("parts: %llu\nrecords: %llu\nfunctions: %llu\nfiles: %llu\nobjects: %llu\n",
              (unsigned long long)info.parts, (unsigned long long)info.records,
              (unsigned long long)info.functions, (unsigned long long)info.files,
              (unsigned long long)info.objects);
  size_t n = 0;
  if (profpack_profile_events(p.p, nullptr, 0, &n) != PROFPACK_OK)
    return failWith(s, args[0].c_str());
  std::vector<profpack_event> ev(n);
  if (profpack_profile_events(p.p, ev.data(), ev.size(), &n) != PROFPACK_OK)
    return failWith(s, args[0].c_str());
  std::printf("events: %zu\n", n);
  int width = 10;  // the names' column: the longest name's, at least ten
  for (auto& e : ev) width = std::max(width, static_cast<int>(std::strlen(e.name)));
  for (auto& e : ev) {
    std::printf(info.signed_costs ? "  %-*s %20lld" : "  %-*s %20llu", width, e.name,
                (unsigned long long)e.total);
    if (*e.long_name) std::printf("  %s", e.long_name);
    std::printf("\n");
  }
  size_t nt = 0;
  if (profpack_profile_threads(p.p, nullptr, 0, &nt) == PROFPACK_OK && nt > 0) {
    std::vector<profpack_thread> threads(nt);
    profpack_profile_threads(p.p, threads.data(), nt, &nt);
    std::printf("threads: %zu\n", nt);
    for (size_t i = 0; i < nt; ++i)
      std::printf("  %zu: pid %lld, thread %lld\n", i, shownId(threads[i].pid),
                  shownId(threads[i].thread_id));
  }
  printWarnings(s, p.p, args[0]);  // on stderr, as every other command's
  return 0;
}

}  // namespace cli
