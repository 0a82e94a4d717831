#include "ops/summary.h"

#include <unordered_set>

#include "formats/dcpi/dcpi.h"
#include "formats/gperftools/gperftools.h"
#include "formats/callgrind/costs.h"
#include "formats/xray/xray.h"

namespace profpack {

Summary summarize(const Profile& profile) {
  auto root = profile.root();
  Summary s;
  s.format = root.getFormat();
  s.formatVersion = root.getFormatVersion().cStr();
  s.parts = root.getParts().size();
  s.strings = profile.strings().size() > 0 ? profile.strings().size() - 1 : 0;

  DecodedContexts contexts(root.getContexts(), profile.strings().size());
  std::unordered_set<uint64_t> fns, files, objects;
  for (size_t i = 0; i < contexts.size(); ++i) {
    if (contexts.function[i]) fns.insert(contexts.function[i]);
    if (contexts.file[i]) files.insert(contexts.file[i]);
    if (contexts.object[i]) objects.insert(contexts.object[i]);
  }
  for (auto part : root.getParts()) {
    CostTableBatches t(part.getCosts(), root.getPositionKinds().size(), root.getEvents().size(),
                       contexts.size());
    while (t.next()) {
      s.records += t.rows;
      for (size_t r = 0; r < t.rows; ++r)
        if (t.sourceFile[r]) files.insert(t.sourceFile[r]);
    }
  }
  if (root.getFormat() == ir::Format::XRAY && root.hasTrace()) {
    // XRay: every record of the trace; functions = distinct function ids.
    XrayTrace x = decodeXray(profile);
    s.records = x.records.size();
    for (const XrayRecord& r : x.records)
      if (xrayIsFunction(r.type) || r.type == kXrayBasicArgument) fns.insert(r.functionId);
  }
  if (s.format == ir::Format::GPERFTOOLS) {
    // Stack samples: records = sample records, objects = mappings.
    auto st = root.getStacks();
    s.records += st.getSampleCount().getCount();
    s.objects = parseMappings(st).size();
  } else {
    s.objects = objects.size();
  }
  s.functions = fns.size();
  s.files = files.size();
  // DCPI: records = chunks, objects = images.
  for (auto image : root.getImages()) {
    s.records += decodeDcpiImage(image).offset.size();
    ++s.objects;
  }
  return s;
}

}  // namespace profpack
