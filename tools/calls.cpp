// profpack calls: the callers and callees of the functions a name or pattern picks.

#include <algorithm>
#include <array>
#include <cstdio>

#include "query.h"

namespace cli {

int cmdCalls(Invocation& s, const std::vector<std::string>& args) {
  QueryArgs q;
  if (int rc = parseQuery(s, args, q, "calls", true)) return rc;
  if (q.function.empty()) return usageError(s, "calls needs a FUNCTION name");
  Profile p;
  size_t event;
  std::string ev;
  if (int rc = openQuery(s, q, p, event, ev)) return rc;
  const Costs costs(p.p);
  // A profile without call arcs (Cachegrind, DCPI) says so rather than list none. Asked only
  // of a function with neither callers nor callees: profpack_profile_info counts the whole
  // profile.
  int noArcs = -1;
  auto recordsNoCalls = [&] {
    if (noArcs < 0) {
      profpack_info info;
      profpack_info_init(&info);
      noArcs = profpack_profile_info(p.p, &info) == PROFPACK_OK &&
               (info.capabilities & PROFPACK_HAS_CALL_ARCS) == 0;
    }
    return noArcs == 1;
  };
  // FUNCTION: a name, FILE:FUNCTION, or a regular expression (as pprof's -focus).
  size_t nf = 0;
  if (profpack_profile_find_functions(p.p, q.function.c_str(), 0, nullptr, 0, &nf) != PROFPACK_OK)
    return failWith(s, q.file.c_str());
  std::vector<size_t> matches(nf);
  profpack_profile_find_functions(p.p, q.function.c_str(), 0, matches.data(), nf, &nf);
  bool found = false;
  Json j;
  if (s.json) {
    jsonQueryHead(j, q, ev);
    j.key("function").str(q.function).key("matches").array();
  }
  // Every match's arcs before anything is printed: where they cannot be read (a .ppk's damaged
  // IR), the command fails without a partial listing.
  std::vector<std::array<std::vector<profpack_call>, 2>> arcsOf(matches.size());
  for (size_t i = 0; i < matches.size(); ++i)
    for (int dir = 0; dir < 2; ++dir)
      if (!arcs(p.p, matches[i], event, dir == 0, arcsOf[i][dir]))
        return failWith(s, q.file.c_str());
  for (size_t i = 0; i < matches.size(); ++i) {
    const size_t id = matches[i];
    found = true;
    if (s.json) {
      uint64_t self = 0, incl = 0, count = 0;
      profpack_profile_function_cost(p.p, id, event, &self, &incl);
      profpack_profile_function_calls(p.p, id, &count);
      j.object();
      jsonFunction(j, p.p, id);
      j.key("self").integer(costs.digits(self)).key("inclusive").integer(costs.digits(incl));
      j.key("calls").integer(costs.digits(count));
      for (int dir = 0; dir < 2; ++dir) {
        j.key(dir == 0 ? "callers" : "callees").array();
        for (const profpack_call& c : arcsOf[i][dir]) {
          j.object();
          jsonFunction(j, p.p, c.function);
          j.key("calls").integer(costs.digits(c.calls));
          j.key("inclusive").integer(costs.digits(c.inclusive)).end();
        }
        j.end();
      }
      j.end();
      continue;
    }
    const std::array<std::vector<profpack_call>, 2>& lists = arcsOf[i];
    uint64_t self = 0, incl = 0;
    profpack_profile_function_cost(p.p, id, event, &self, &incl);
    std::printf("%s\n  %s self %s, inclusive %s\n", functionLabel(p.p, id).c_str(), ev.c_str(),
                costs.commas(self).c_str(), costs.commas(incl).c_str());
    if (lists[0].empty() && lists[1].empty() && recordsNoCalls()) {
      std::printf("  (%s profiles record no calls: no callers or callees to show)\n",
                  profpack_format_name(profpack_profile_format(p.p)));
      continue;
    }
    for (int dir = 0; dir < 2; ++dir) {
      std::printf("  %s:\n", dir == 0 ? "callers" : "callees");
      for (const profpack_call& c : lists[dir])
        std::printf("    %15s %10s calls  %s\n", costs.commas(c.inclusive).c_str(),
                    costs.commas(c.calls).c_str(), functionLabel(p.p, c.function).c_str());
    }
  }
  if (!found) {
    std::vector<size_t> near(20);  // several functions may share a name: five names of them
    size_t n = 0;
    profpack_profile_find_functions(p.p, q.function.c_str(), PROFPACK_FIND_SIMILAR, near.data(),
                                    near.size(), &n);
    std::string hint;
    std::vector<std::string> named;
    for (size_t i = 0; i < n && i < near.size() && named.size() < 5; ++i) {
      profpack_function f;
      if (profpack_profile_function(p.p, near[i], &f) != PROFPACK_OK ||
          std::find(named.begin(), named.end(), f.name) != named.end())
        continue;
      named.push_back(f.name);
      hint += std::string(hint.empty() ? "; did you mean " : ", ") + "'" + f.name + "'";
    }
    return failure(s, q.file, "no function named or matching '" + q.function + "'" + hint);
  }
  if (s.json) {
    j.end();
    jsonWarnings(s, j);
    printJson(j.end());
  }
  return 0;
}

}  // namespace cli
