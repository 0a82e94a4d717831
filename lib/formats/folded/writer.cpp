#include <string_view>
#include <unordered_map>
#include <vector>

#include "error.h"
#include "formats/folded/folded.h"
#include "util/text.h"

namespace profpack {

void writeFolded(const Model& model, size_t event, Sink& out) {
  if (!model.has(kCapStacks))
    throw Error(Status::unsupported, "folded",
                model.sourceFormat() + " holds no call stacks, so there is nothing to fold");
  if (event >= model.events())
    throw Error(Status::invalidArgument, "folded", "the profile has no cost events");
  const StackLayer& st = model.stacks();
  const size_t ne = model.events();
  // Names as the format can hold them, once per function.
  std::vector<std::string> names(model.functions());
  for (size_t f = 0; f < names.size(); ++f) {
    names[f] = model.function(f).name;
    for (char& c : names[f])
      if (c == ';' || c == '\n' || c == '\r') c = c == ';' ? ':' : ' ';
  }
  // Stacks told apart by their frames' locations (the lines of one function) are one stack of
  // functions here: their costs are summed into the first.
  std::vector<uint64_t> value(st.stacks());
  for (size_t s = 0; s < st.stacks(); ++s) value[s] = st.values[s * ne + event];
  if (!st.locations.empty()) {
    std::unordered_map<std::string_view, size_t> first;
    const char* base = reinterpret_cast<const char*>(st.frames.data());
    for (size_t s = 0; s < st.stacks(); ++s) {
      const std::string_view key(base + st.start[s] * 8, (st.start[s + 1] - st.start[s]) * 8);
      auto [it, added] = first.emplace(key, s);
      if (!added) {
        value[it->second] += value[s];
        value[s] = 0;
      }
    }
  }
  std::string text;
  for (size_t s = 0; s < st.stacks(); ++s) {
    const uint64_t v = value[s];
    if (v == 0) continue;
    for (uint64_t i = st.start[s]; i < st.start[s + 1]; ++i) {
      if (i != st.start[s]) text += ';';
      text += names[st.frames[i]];
    }
    text += ' ';
    appendDecimal(text, v);
    text += '\n';
    flushIfFull(text, out);
  }
  out.write(text);
}

}  // namespace profpack
