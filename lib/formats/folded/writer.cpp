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
  std::string text;
  for (size_t s = 0; s < st.stacks(); ++s) {
    const uint64_t v = st.values[s * ne + event];
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
