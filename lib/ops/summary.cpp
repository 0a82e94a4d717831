#include "summary.h"

#include <unordered_set>

#include "../ir/costs.h"

namespace profpack {

Summary summarize(const Profile& profile) {
  auto root = profile.root();
  Summary s;
  s.format = root.getFormat();
  s.formatVersion = root.getFormatVersion().cStr();
  s.parts = root.getParts().size();
  s.strings = profile.strings().size() > 0 ? profile.strings().size() - 1 : 0;
  for (auto e : root.getEvents())
    s.events.push_back({e.getName().cStr(), e.getLongName().cStr(), 0});

  DecodedContexts contexts(root.getContexts(), profile.strings().size());
  std::unordered_set<uint64_t> fns, files, objects;
  for (size_t i = 0; i < contexts.size(); ++i) {
    if (contexts.function[i]) fns.insert(contexts.function[i]);
    if (contexts.file[i]) files.insert(contexts.file[i]);
    if (contexts.object[i]) objects.insert(contexts.object[i]);
  }
  for (auto part : root.getParts()) {
    DecodedCosts t(part.getCosts(), root.getPositionKinds().size(), s.events.size(),
                   contexts.size());
    s.records += t.kind.size();
    size_t ci = 0;
    for (size_t r = 0; r < t.kind.size(); ++r) {
      size_t n = t.costCount[r];
      if (t.kind[r] == static_cast<uint64_t>(ir::RecordKind::COST))
        for (size_t i = 0; i < n; ++i) s.events[i].total += t.costs[ci + i];
      if (t.sourceFile[r]) files.insert(t.sourceFile[r]);
      ci += n;
    }
  }
  if (s.format == ir::Format::GPERFTOOLS) {
    // Stack samples: every record counts, the event is the sample count, objects = mappings.
    auto st = root.getStacks();
    std::vector<uint64_t> count = decodeColumn(st.getSampleCount());
    s.records += count.size();
    EventSummary e{"samples", "", 0};
    for (uint64_t c : count) e.total += c;
    s.events.push_back(std::move(e));
    s.objects = st.getMappings().size();
  } else {
    s.objects = objects.size();
  }
  s.functions = fns.size();
  s.files = files.size();
  return s;
}

}  // namespace profpack
