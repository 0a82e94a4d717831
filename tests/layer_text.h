// A model's function layer as text, for tests that compare two ways of computing it.
#pragma once

#include <string>

#include "model/model.h"

namespace testlib {

// A model's function layer and summary as text: functions in their order with their costs,
// edges in their order, the summary's counts.
inline std::string layerText(const profpack::Model& m) {
  using namespace profpack;
  std::string out;
  for (uint64_t f = 0; f < m.functions(); ++f) {
    const FunctionRow& r = m.function(f);
    out += r.name + "|" + r.file + "|" + r.object + " calls " + std::to_string(m.calls(f));
    for (size_t e = 0; e < m.events(); ++e)
      out += " " + std::to_string(m.self(f, e)) + "/" + std::to_string(m.inclusive(f, e));
    out += "\n";
  }
  for (const CallEdge& e : m.edges()) {
    out +=
        std::to_string(e.caller) + "->" + std::to_string(e.callee) + " x" + std::to_string(e.calls);
    for (size_t i = 0; i < m.events(); ++i) out += " " + std::to_string(e.inclusive[i]);
    out += "\n";
  }
  const Summary& s = m.summary();
  out += "records " + std::to_string(s.records) + " functions " + std::to_string(s.functions) +
         " files " + std::to_string(s.files) + " objects " + std::to_string(s.objects) + "\n";
  return out;
}

}  // namespace testlib
