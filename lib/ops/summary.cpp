#include "summary.h"

#include <algorithm>
#include <unordered_set>

#include "../dcpi/dcpi.h"
#include "../ir/costs.h"
#include "../xray/xray.h"

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
                   contexts.size(), /*withPositions=*/false);
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
  if (root.getFormat() == ir::Format::XRAY && root.hasTrace()) {
    // XRay: every record of the trace; functions = distinct function ids; events: function
    // entries (calls), exits, and custom/typed events.
    XrayTrace x = decodeXray(profile);
    s.records = x.records.size();
    uint64_t enters = 0, exits = 0, events = 0;
    for (const XrayRecord& r : x.records) {
      if (xrayIsFunction(r.type) || r.type == kXrayBasicArgument) fns.insert(r.functionId);
      if (r.type == kXrayEnter || r.type == kXrayEnterArg) ++enters;
      if (r.type == kXrayExit || r.type == kXrayTailExit) ++exits;
      if (r.type == kXrayCustomEvent || r.type == kXrayTypedEvent) ++events;
    }
    s.events.push_back({"enter", "function entries", enters});
    s.events.push_back({"exit", "function exits and tail exits", exits});
    s.events.push_back({"event", "custom and typed events", events});
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
  // DCPI: records = chunks, objects = images, one event per distinct `event` header value
  // with the sum of all counts.
  for (auto image : root.getImages()) {
    DcpiImage d = decodeDcpiImage(image);
    s.records += d.offset.size();
    ++s.objects;
    uint64_t total = 0;
    for (uint64_t c : d.counts) total += c;
    auto it = std::find_if(s.events.begin(), s.events.end(),
                           [&](const EventSummary& e) { return e.name == d.event; });
    if (it == s.events.end()) it = s.events.insert(s.events.end(), {d.event, "", 0});
    it->total += total;
  }
  return s;
}

}  // namespace profpack
