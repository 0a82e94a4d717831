// Symbolization's IR writer: the addresses to look up (every location with self cost at its
// address; every caller's frame of a stack at address - 1, inside the call instruction) and the
// symbol section of what a resolver names them.

#include "symbolize/writer.h"

#include <algorithm>
#include <unordered_map>

#include "error.h"
#include "formats/registry.h"
#include "ir/column.h"
#include "symbolize/source.h"
#include "symbolize/table.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "symbols";

// The symbol section's columns as they are filled.
struct Columns {
  ColumnWriter mapping, address{ir::Column::Encoding::ZIGZAG_DELTA}, returnAddress, count;
  ColumnWriter function, file, line;
  std::vector<std::string> names{""};
  std::unordered_map<std::string, uint64_t> nameIndex{{"", 0}};

  uint64_t intern(const std::string& s) {
    auto [it, added] = nameIndex.emplace(s, names.size());
    if (added) names.push_back(s);
    return it->second;
  }
  void add(const SymbolKey& key, const std::vector<SymbolFrame>& frames) {
    mapping.push(static_cast<uint64_t>(key.mapping));
    address.push(key.address);
    returnAddress.push(key.returnAddress ? 1 : 0);
    count.push(frames.size());
    for (const SymbolFrame& f : frames) {
      function.push(intern(f.function));
      file.push(intern(f.file));
      line.push(f.line);
    }
  }
  void build(ir::Symbols::Builder sym) {
    if (names.size() > (size_t{1} << 29) - 1)
      throw Error(Status::limit, kFmt, "more than 2^29 - 1 distinct symbol names");
    mapping.build(sym.initMapping());
    address.build(sym.initAddress());
    returnAddress.build(sym.initReturnAddress());
    count.build(sym.initFrameCount());
    function.build(sym.initFunction());
    file.build(sym.initFile());
    line.build(sym.initLine());
    auto list = sym.initNames(static_cast<unsigned>(names.size()));
    for (size_t i = 0; i < names.size(); ++i) list.set(static_cast<unsigned>(i), names[i]);
  }
};

}  // namespace

std::unique_ptr<capnp::MallocMessageBuilder> copyOf(const Profile& profile) {
  auto msg = newMessage(profile.flatSize());
  msg->setRoot(profile.root());
  return msg;
}

std::unique_ptr<Model> addressModel(const Profile& profile) {
  ModelOptions mo;
  mo.symbols = false;
  mo.callEdges = false;  // its readers take the locations only
  return buildModel(profile, mo);
}

std::vector<SymbolKey> addressesToName(const Model& model) {
  const bool ids = model.has(kCapFunctionIds);
  const LocationLayer& layer = model.locations();
  const size_t ne = model.events();
  std::vector<SymbolKey> keys;
  std::vector<int64_t> locationOf(model.functions(), -1);
  for (size_t i = 0; i < layer.locations.size(); ++i) {
    const Location& l = layer.locations[i];
    if (l.callSite) continue;  // looked up below, at its return address
    if (l.function >= 0 && locationOf[static_cast<size_t>(l.function)] < 0)
      locationOf[static_cast<size_t>(l.function)] = static_cast<int64_t>(i);
    if (l.mapping < 0) continue;
    bool self = ids || !model.has(kCapStacks);
    for (size_t e = 0; e < ne && !self; ++e) self = layer.self[i * ne + e] != 0;
    if (self) keys.push_back({l.mapping, l.address, false});
  }
  if (!ids && model.has(kCapStacks)) {
    // Each frame once, however many stacks it is a caller in: a key per stack frame took 24
    // bytes times every frame of every stack (264 MB for a 50 MB gperftools profile of 1.1 M
    // chains) before the sort below removed the repeats.
    const StackLayer& st = model.stacks();
    std::vector<bool> asCaller(locationOf.size(), false);
    for (size_t s = 0; s < st.stacks(); ++s)
      for (uint64_t k = st.start[s]; k + 1 < st.start[s + 1]; ++k) {
        const uint64_t f = st.frames[k];
        if (asCaller[f]) continue;
        asCaller[f] = true;
        const int64_t li = locationOf[f];
        if (li < 0) continue;
        const Location& l = layer.locations[static_cast<size_t>(li)];
        if (l.mapping >= 0) keys.push_back({l.mapping, l.address, true});
      }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<int64_t> mappingsToName(const std::vector<SymbolKey>& keys) {
  std::vector<int64_t> out;
  for (const SymbolKey& k : keys)
    if (out.empty() || out.back() != k.mapping) out.push_back(k.mapping);
  return out;
}

std::unique_ptr<Profile> withSymbols(const Profile& profile, const Model& model, Resolver& resolver,
                                     std::vector<std::string> warnings, bool warnUnnamed,
                                     const std::vector<SymbolKey>* given) {
  std::vector<SymbolKey> made;
  if (!given) made = addressesToName(model);
  const std::vector<SymbolKey>& keys = given ? *given : made;
  const LocationLayer& layer = model.locations();
  auto msg = copyOf(profile);
  auto sym = msg->getRoot<ir::Profile>().initSymbols();
  auto binaries = sym.initMappings(static_cast<unsigned>(layer.mappings.size()));
  Columns columns;
  for (size_t k = 0; k < keys.size(); ++k)
    if (k == 0 || keys[k].mapping != keys[k - 1].mapping)
      resolver.prefetch(layer.mappings[static_cast<size_t>(keys[k].mapping)]);
  size_t k = 0;
  while (k < keys.size()) {
    const int64_t m = keys[k].mapping;
    size_t end = k;
    while (end < keys.size() && keys[end].mapping == m) ++end;
    const Mapping& mapping = layer.mappings[static_cast<size_t>(m)];
    auto binary = binaries[static_cast<unsigned>(m)];
    const std::string label = "mapping " + std::to_string(m) + " (" +
                              (mapping.path.empty() ? std::string("no file") : mapping.path) + ")";
    std::string used, id, why;
    if (!resolver.open(mapping, used, id, why)) {
      binary.setWarning(label + ": " + why);
      if (warnUnnamed) warnings.push_back(label + " not symbolized: " + why);
      k = end;
      continue;
    }
    binary.setPath(used);
    binary.setLoadBias(resolver.loadBias());
    binary.setBuildId(kj::arrayPtr(reinterpret_cast<const kj::byte*>(id.data()), id.size()));
    for (; k < end; ++k) {
      const std::vector<SymbolFrame>* frames =
          resolver.frames(mapping, keys[k].address, keys[k].returnAddress);
      if (frames && !frames->empty()) columns.add(keys[k], *frames);
    }
    const std::string problem = resolver.problem();
    if (!problem.empty() && warnUnnamed) warnings.push_back(label + ": " + used + ": " + problem);
  }
  columns.build(sym);
  auto out = std::make_unique<Profile>(std::move(msg));
  out->warnings() = std::move(warnings);
  nameBySymbolSection(*out);
  return out;
}

}  // namespace profpack
