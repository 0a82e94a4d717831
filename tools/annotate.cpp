// profpack annotate: the per-line costs of one source file.

#include <cstdio>
#include <fstream>

#include "query.h"

namespace cli {

int cmdAnnotate(Invocation& s, const std::vector<std::string>& args) {
  QueryArgs q;
  if (int rc = parseQuery(s, args, q, "annotate", false)) return rc;
  if (q.source.empty()) return usageError(s, "annotate needs --source PATH");
  Profile p;
  size_t event;
  std::string ev;
  if (int rc = openQuery(s, q, p, event, ev)) return rc;
  const Costs costs(p.p);
  size_t n = 0;
  if (profpack_profile_line_costs(p.p, q.source.c_str(), event, nullptr, 0, &n) != PROFPACK_OK)
    return failWith(s, q.file.c_str());
  std::vector<profpack_line_cost> lines(n);
  profpack_profile_line_costs(p.p, q.source.c_str(), event, lines.data(), n, &n);
  if (n == 0) return failure(s, q.file, "no costs recorded for source '" + q.source + "'");
  if (s.json) {
    Json j;
    jsonQueryHead(j, q, ev);
    j.key("source").str(q.source).key("lines").array();
    for (size_t i = 0; i < lines.size() && i < n; ++i)
      j.object()
          .key("line")
          .integer(lines[i].line)
          .key("cost")
          .integer(costs.digits(lines[i].cost))
          .end();
    j.end();
    jsonWarnings(s, j);
    printJson(j.end());
    return 0;
  }
  std::ifstream src(q.source);
  std::printf("%s per line of %s\n", ev.c_str(), q.source.c_str());
  if (!src) {
    for (auto& l : lines)
      std::printf("%8llu %15s\n", (unsigned long long)l.line, costs.commas(l.cost).c_str());
    return 0;
  }
  std::string text;
  size_t li = 0;
  // Costs without a line (line 0: code the compiler gave no line, as clang's merged
  // instructions) come after the text, as callgrind_annotate's "<counts for unidentified
  // lines>": left out, the lines would not add up to the file's cost.
  uint64_t unknown = 0;
  bool anyUnknown = false;
  for (; li < n && lines[li].line == 0; ++li) {
    unknown += lines[li].cost;
    anyUnknown = true;
  }
  for (uint64_t no = 1; std::getline(src, text); ++no) {
    std::string cost;
    if (li < n && lines[li].line == no) cost = costs.commas(lines[li++].cost);
    std::printf("%15s  %5llu  %s\n", cost.c_str(), (unsigned long long)no, text.c_str());
  }
  for (; li < n; ++li)
    std::printf("%15s  %5llu  (past the end of the source file)\n",
                costs.commas(lines[li].cost).c_str(), (unsigned long long)lines[li].line);
  if (anyUnknown)
    std::printf("%15s      0  (no line information)\n", costs.commas(unknown).c_str());
  return 0;
}

}  // namespace cli
