// profpack top: the most costly functions, as text, columns of every event, TSV or JSON.

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "query.h"

namespace cli {

namespace {

// An open `top`: the profile, its event and the ranked functions.
struct Ranking {
  const QueryArgs& q;
  profpack_profile* p;
  size_t event;
  std::string ev;
  std::vector<size_t> ids;  // the first n of the ranking
  std::vector<profpack_event> events;
  const Costs& costs;
  std::vector<bool> recursive;  // per id, for the JSON and TSV forms
  uint64_t total() const { return events[event].total; }
};

int topJson(const Invocation& s, const Ranking& r) {
  Json j;
  jsonQueryHead(j, r.q, r.ev);
  double perSecond = 0;
  profpack_profile_event_units_per_second(r.p, r.event, &perSecond);
  j.key("total").integer(r.costs.digits(r.total())).key("units_per_second").number(perSecond);
  uint64_t base = 0;  // a difference that records its base: the base's total
  profpack_profile_event_base_total(r.p, r.event, &base);
  if (base > 0) j.key("base_total").integer(std::to_string(base));
  j.key("rank").str(r.q.inclusive ? "inclusive" : "self");
  j.key("functions").array();
  for (size_t i = 0; i < r.ids.size(); ++i) {
    const size_t id = r.ids[i];
    uint64_t self = 0, incl = 0, calls = 0;
    profpack_profile_function_cost(r.p, id, r.event, &self, &incl);
    profpack_profile_function_calls(r.p, id, &calls);
    j.object();
    jsonFunction(j, r.p, id);
    j.key("self").integer(r.costs.digits(self)).key("inclusive").integer(r.costs.digits(incl));
    j.key("calls").integer(r.costs.digits(calls));
    j.key("recursive").boolean(r.recursive[i]).end();
  }
  j.end();
  jsonWarnings(s, j);
  printJson(j.end());
  return 0;
}

int topTsv(const Ranking& r) {
  for (size_t i = 0; i < r.ids.size(); ++i) {
    const size_t id = r.ids[i];
    uint64_t self = 0, incl = 0;
    profpack_profile_function_cost(r.p, id, r.event, &self, &incl);
    const bool recursive = r.recursive[i];
    profpack_function f;
    profpack_profile_function(r.p, id, &f);
    std::printf("%s\t%s\t%d\t%s\t%s\t%s\n", r.costs.digits(self).c_str(),
                r.costs.digits(incl).c_str(), recursive ? 1 : 0, f.file, f.name, f.object);
  }
  return 0;
}

// Several events (Cachegrind, Callgrind with a cache simulation): every one, as cg_annotate
// shows them, ranked by the first.
int topColumns(const Ranking& r) {
  const size_t nev = r.events.size(), count = r.ids.size();
  std::vector<std::string> cells(nev);
  std::vector<size_t> width(nev);
  for (size_t e = 0; e < nev; ++e) width[e] = std::max<size_t>(strlen(r.events[e].name), 6);
  std::vector<std::vector<std::string>> rows(count + 1, std::vector<std::string>(nev));
  for (size_t e = 0; e < nev; ++e) rows[0][e] = r.costs.commas(r.events[e].total);
  for (size_t i = 0; i < count; ++i)
    for (size_t e = 0; e < nev; ++e) {
      uint64_t self = 0, incl = 0;
      profpack_profile_function_cost(r.p, r.ids[i], e, &self, &incl);
      rows[i + 1][e] = r.costs.commas(r.q.inclusive ? incl : self);
    }
  for (const auto& row : rows)
    for (size_t e = 0; e < nev; ++e) width[e] = std::max(width[e], row[e].size());
  auto line = [&](const std::vector<std::string>& cells, const std::string& label) {
    for (size_t e = 0; e < nev; ++e)
      std::printf("%s%*s", e ? "  " : "", static_cast<int>(width[e]), cells[e].c_str());
    std::printf("  %s\n", label.c_str());
  };
  for (size_t e = 0; e < nev; ++e) cells[e] = r.events[e].name;
  line(cells, "function");
  line(rows[0], "(total)");
  for (size_t i = 0; i < count; ++i) line(rows[i + 1], functionLabel(r.p, r.ids[i]));
  return 0;
}

int topText(const Ranking& r) {
  // Where the events are time (a trace's ticks, a sampled profile's samples), seconds too;
  // and the calls where the profile counts them, as llvm-xray account shows them.
  const Costs& c = r.costs;
  double perSecond = 0;
  profpack_profile_event_units_per_second(r.p, r.event, &perSecond);
  std::vector<uint64_t> calls(r.ids.size(), 0);
  bool counted = false;
  for (size_t i = 0; i < r.ids.size(); ++i) {
    profpack_profile_function_calls(r.p, r.ids[i], &calls[i]);
    counted |= calls[i] != 0;
  }
  const uint64_t total = r.total();
  std::printf("%s total: %s", r.ev.c_str(), c.commas(total).c_str());
  if (perSecond > 0) std::printf(" (%.6fs)", c.value(total) / perSecond);
  // A difference that records its base: shares of the base's total, as pprof's -diff_base
  // takes them (the net total of a difference can be near zero, or negative).
  uint64_t base = 0;
  profpack_profile_event_base_total(r.p, r.event, &base);
  if (base > 0) {
    std::printf("; base total: %s", c.commas(base).c_str());
    if (perSecond > 0) std::printf(" (%.6fs)", static_cast<double>(base) / perSecond);
    std::printf(", of which the shares are");
  }
  const double of = base > 0 ? static_cast<double>(base) : total ? c.value(total) : 0.0;
  std::printf("\n%s %s:\n", r.ev.c_str(), r.q.inclusive ? "inclusive" : "self");
  if (r.events.size() > 1 && r.q.event.empty()) return topColumns(r);  // --event picks one
  for (size_t i = 0; i < r.ids.size(); ++i) {
    uint64_t self = 0, incl = 0;
    profpack_profile_function_cost(r.p, r.ids[i], r.event, &self, &incl);
    const uint64_t v = r.q.inclusive ? incl : self;
    const double share = of != 0 ? 100.0 * c.value(v) / of : 0.0;
    if (perSecond > 0) {
      std::printf("%15s (%6.2f%%) %12.6fs", c.commas(v).c_str(), share, c.value(v) / perSecond);
      if (counted) std::printf(" %10s calls", c.commas(calls[i]).c_str());
      std::printf("  %s\n", functionLabel(r.p, r.ids[i]).c_str());
      continue;
    }
    std::printf("%15s (%6.2f%%)  %s\n", c.commas(v).c_str(), share,
                functionLabel(r.p, r.ids[i]).c_str());
  }
  return 0;
}

}  // namespace

int cmdTop(Invocation& s, const std::vector<std::string>& args) {
  QueryArgs q;
  if (int rc = parseQuery(s, args, q, "top", false)) return rc;
  Profile p;
  size_t event;
  std::string ev;
  if (int rc = openQuery(s, q, p, event, ev)) return rc;
  const Costs costs(p.p);
  // Room for the functions the profile has, not for -n's figure: `-n 100000000` asks for
  // "all of them", not for 800 MB of ids.
  size_t count = 0;
  if (profpack_profile_top_functions(p.p, event, 0, nullptr, 0, &count) != PROFPACK_OK)
    return failWith(s, q.file.c_str());
  std::vector<size_t> ids(std::min(q.n, count));
  if (profpack_profile_top_functions(p.p, event, q.inclusive ? PROFPACK_TOP_INCLUSIVE : 0,
                                     ids.data(), ids.size(), &count) != PROFPACK_OK)
    return failWith(s, q.file.c_str());
  ids.resize(std::min(count, ids.size()));  // every function is ranked; the first n were written
  // Whether each calls itself, for the forms that say so: from the call arcs, which a .ppk
  // that keeps its function layer reads from its IR (a damaged IR is reported here).
  std::vector<bool> recursive(ids.size());
  if (s.json || q.tsv)
    for (size_t i = 0; i < ids.size(); ++i) {
      bool b = false;
      if (!isRecursive(p.p, ids[i], event, b)) return failWith(s, q.file.c_str());
      recursive[i] = b;
    }
  const Ranking r{q, p.p, event, ev, ids, eventsOf(p.p), costs, std::move(recursive)};
  if (s.json) return topJson(s, r);
  if (q.tsv) return topTsv(r);
  return topText(r);
}

}  // namespace cli
