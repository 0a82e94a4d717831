// The registry's rules for merges and differences (registry.h): the format each is kept in, the
// format's own merge where it has one, and a profile of a format made from a model.
#include <memory>
#include <span>
#include <string>

#include "error.h"
#include "formats/registry.h"
#include "formats/registry_codec.h"

namespace profpack {

FormatId mergedFormat(const Profile& profile) { return codecOf(profile).mergeAs; }

FormatId mixedFormat() { return FormatId::callgrind; }

FormatId differenceFormat(const Profile& base, const Profile& current, uint32_t capabilities) {
  const Codec& c = codecOf(base);
  if (&c == &codecOf(current)) {
    const Codec* kept = codecFor(c.mergeAs);
    if (kept && kept->holdsSigned) return kept->id;
  }
  if (capabilities & kCapStacks)
    // The first format that holds negative costs, is written with the model's stacks, read
    // back, and whose own merge keeps a difference's base apart.
    for (const Codec& k : codecs())
      if (k.holdsSigned && k.writeModel && k.writeModelReadsStacks && k.read && k.merge &&
          k.merge()->takesBase())
        return k.id;
  return mixedFormat();
}

HeaderPairs differenceHeader(FormatId format, const Model& base, const std::string& baseName,
                             const Model& current, const std::string& currentName) {
  const Codec* c = codecFor(format);
  if (!c || !c->differenceHeader) return {};
  return c->differenceHeader(base, baseName, current, currentName);
}

std::unique_ptr<FormatMerge> formatMerge(const Profile& profile) {
  const Codec& c = codecOf(profile);
  return c.merge ? c.merge() : nullptr;
}

std::unique_ptr<FormatMerge> formatMerge(FormatId format) {
  const Codec* c = codecFor(format);
  return c && c->merge ? c->merge() : nullptr;
}

bool keepsStacks(FormatId format) {
  const Codec* c = codecFor(format);
  return c && c->writeModel && c->writeModelReadsStacks;
}

std::unique_ptr<Profile> profileFromModel(const Model& model, FormatId format) {
  const Codec* c = codecFor(format);
  if (!c || !c->writeModel || !c->read)
    throw Error(Status::unsupported, c ? c->name : "", "a profile cannot be kept in this format");
  StringSink text;
  const ModelFor noThreads = [](long) -> std::unique_ptr<Model> {
    throw Error(Status::internal, "", "a model without threads was asked for a thread");
  };
  c->writeModel(model, noThreads, {}, text);
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.out.data()),
                                       text.out.size());
  return c->read(bytes, {});
}

}  // namespace profpack
