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

// The symbol section's columns as they are filled, and the same decoded (what the section's
// SymbolTable would read back from them).
struct Columns {
  ColumnWriter mapping, address{ir::Column::Encoding::ZIGZAG_DELTA}, returnAddress, count;
  ColumnWriter function, file, line, declaration;
  std::unordered_map<std::string, uint64_t> nameIndex{{"", 0}};
  std::shared_ptr<SymbolTable> table = std::make_shared<SymbolTable>();

  Columns() { table->names.emplace_back(); }
  uint64_t intern(const std::string& s) {
    // The IR's text ends at a NUL (a crafted .ppk's names, passed on by a merge): the table
    // holds what the section will.
    if (s.find('\0') != std::string::npos) return intern(std::string(s.c_str()));
    auto [it, added] = nameIndex.emplace(s, table->names.size());
    if (added) table->names.push_back(s);
    return it->second;
  }
  void add(const SymbolKey& key, const std::vector<SymbolFrame>& frames) {
    mapping.push(static_cast<uint64_t>(key.mapping));
    address.push(key.address);
    returnAddress.push(key.returnAddress ? 1 : 0);
    count.push(frames.size());
    table->entries.set(key, {table->frames.size(), frames.size()});
    for (const SymbolFrame& f : frames) {
      const uint64_t fn = intern(f.function), fi = intern(f.file);
      function.push(fn);
      file.push(fi);
      line.push(f.line);
      declaration.push(f.declaration);
      table->frames.push_back({fn, fi, f.line, f.declaration});
    }
  }
  // Refused when named, not when the section is built (which may be later).
  void checkLimits() const {
    if (table->names.size() > (size_t{1} << 29) - 1)
      throw Error(Status::limit, kFmt, "more than 2^29 - 1 distinct symbol names");
  }
  void build(ir::Symbols::Builder sym) {
    const std::vector<std::string>& names = table->names;
    checkLimits();
    mapping.build(sym.initMapping());
    address.build(sym.initAddress());
    returnAddress.build(sym.initReturnAddress());
    count.build(sym.initFrameCount());
    function.build(sym.initFunction());
    file.build(sym.initFile());
    line.build(sym.initLine());
    declaration.build(sym.initDeclaration());
    auto list = sym.initNames(static_cast<unsigned>(names.size()));
    for (size_t i = 0; i < names.size(); ++i) list.set(static_cast<unsigned>(i), names[i]);
  }
};

// What a resolver named of a model's addresses: the symbol section, to be built into a message.
struct Naming {
  struct Binary {
    int64_t mapping;
    bool named;  // else `warning` says why not
    std::string path, buildId, warning;
    uint64_t loadBias;
  };
  size_t mappings = 0;
  std::vector<Binary> binaries;  // in the order they were opened
  Columns columns;
  std::vector<std::string> warnings;

  // Fills `sym` as symbolization always has: mappings, then each opened one's fields, in the
  // order they were opened, then the columns (so that the bytes do not depend on when).
  void build(ir::Symbols::Builder sym) {
    auto list = sym.initMappings(static_cast<unsigned>(mappings));
    for (const Binary& b : binaries) {
      auto out = list[static_cast<unsigned>(b.mapping)];
      if (!b.named) {
        out.setWarning(b.warning);
        continue;
      }
      out.setPath(b.path);
      out.setLoadBias(b.loadBias);
      out.setBuildId(
          kj::arrayPtr(reinterpret_cast<const kj::byte*>(b.buildId.data()), b.buildId.size()));
    }
    columns.build(sym);
  }
};

Naming nameAddresses(const Model& model, Resolver& resolver, std::vector<std::string> warnings,
                     bool warnUnnamed, const std::vector<SymbolKey>* given) {
  std::vector<SymbolKey> made;
  if (!given) made = addressesToName(model);
  const std::vector<SymbolKey>& keys = given ? *given : made;
  const LocationLayer& layer = model.locations();
  Naming n;
  n.mappings = layer.mappings.size();
  n.columns.table->loadBias.assign(n.mappings, 0);
  for (size_t k = 0; k < keys.size(); ++k)
    if (k == 0 || keys[k].mapping != keys[k - 1].mapping)
      resolver.prefetch(layer.mappings[static_cast<size_t>(keys[k].mapping)]);
  size_t k = 0;
  while (k < keys.size()) {
    const int64_t m = keys[k].mapping;
    size_t end = k;
    while (end < keys.size() && keys[end].mapping == m) ++end;
    const Mapping& mapping = layer.mappings[static_cast<size_t>(m)];
    const std::string label = "mapping " + std::to_string(m) + " (" +
                              (mapping.path.empty() ? std::string("no file") : mapping.path) + ")";
    std::string used, id, why;
    if (!resolver.open(mapping, used, id, why)) {
      n.binaries.push_back({m, false, "", "", label + ": " + why, 0});
      if (warnUnnamed) warnings.push_back(label + " not symbolized: " + why);
      k = end;
      continue;
    }
    n.binaries.push_back({m, true, used, id, "", resolver.loadBias()});
    n.columns.table->loadBias[static_cast<size_t>(m)] = resolver.loadBias();
    for (; k < end; ++k) {
      const std::vector<SymbolFrame>* frames =
          resolver.frames(mapping, keys[k].address, keys[k].returnAddress);
      if (frames && !frames->empty()) n.columns.add(keys[k], *frames);
    }
    const std::string problem = resolver.problem();
    if (!problem.empty() && warnUnnamed) warnings.push_back(label + ": " + used + ": " + problem);
  }
  n.columns.checkLimits();
  // Kept with the profile: without what growing them left spare.
  n.columns.table->frames.shrink_to_fit();
  n.columns.table->names.shrink_to_fit();
  n.warnings = std::move(warnings);
  return n;
}

// The symbol section of a profile named as it is read, built with its copy of the IR when
// something first asks for the IR (a .ppk write): a conversion or a query is answered from
// the base profile's IR and the names as they were found.
class DeferredSymbols : public Profile::Deferred {
 public:
  DeferredSymbols(std::shared_ptr<const Profile> base, Naming naming)
      : base_(std::move(base)), naming_(std::move(naming)) {}
  std::unique_ptr<capnp::MallocMessageBuilder> build(ir::Profile::Reader) override {
    auto msg = copyOf(*base_);
    naming_.build(msg->getRoot<ir::Profile>().initSymbols());
    return msg;
  }

 private:
  std::shared_ptr<const Profile> base_;
  Naming naming_;
};

}  // namespace

std::unique_ptr<capnp::MallocMessageBuilder> copyOf(const Profile& profile) {
  auto msg = newMessage(profile.flatSize());
  msg->setRoot(profile.root());
  return msg;
}

std::unique_ptr<Model> addressModel(const Profile& profile, std::shared_ptr<ModelCache> cache) {
  ModelOptions mo;
  mo.cache = std::move(cache);
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
  std::vector<bool> atOwn(layer.locations.size(), false);  // named at its own address here
  for (size_t i = 0; i < layer.locations.size(); ++i) {
    const Location& l = layer.locations[i];
    if (l.callSite) continue;  // looked up below, at its return address
    if (l.function >= 0 && locationOf[static_cast<size_t>(l.function)] < 0)
      locationOf[static_cast<size_t>(l.function)] = static_cast<int64_t>(i);
    if (l.mapping < 0) continue;
    bool self = ids || !model.has(kCapStacks);
    for (size_t e = 0; e < ne && !self; ++e) self = layer.self[i * ne + e] != 0;
    if (self) keys.push_back({l.mapping, l.address, false});
    atOwn[i] = self;
  }
  if (!ids && model.has(kCapStacks)) {
    // Each frame once, however many stacks it is a caller in: a key per stack frame took 24
    // bytes times every frame of every stack (264 MB for a 50 MB gperftools profile of 1.1 M
    // chains) before the sort below removed the repeats.
    const StackLayer& st = model.stacks();
    if (st.locationsOnly())
      throw Error(Status::internal, "", "naming needs the model's stack frames");
    // Where the stacks say each frame's location, each caller's location is named (one
    // function may have many: pprof's locations without lines are one function per mapping);
    // where the frames are placed (LocationLayer::framesPlaced), where its location says: at a
    // return address (a call site) or at its own address. Else at a return address, unless
    // it has a self cost and was named at its own address above (SymbolizedSource's rule).
    const bool perFrame = st.locations.size() == st.frames.size();
    const bool placed = layer.framesPlaced && perFrame;
    std::vector<bool> asked(perFrame ? layer.locations.size() : 0, false);
    std::vector<bool> asCaller(locationOf.size(), false);
    for (size_t s = 0; s < st.stacks(); ++s)
      for (uint64_t k = st.start[s]; k + 1 < st.start[s + 1]; ++k) {
        if (perFrame) {
          const uint64_t li = st.locations[k];
          if (li >= asked.size() || asked[li]) continue;
          asked[li] = true;
          const Location& l = layer.locations[li];
          if (l.mapping < 0 || (!placed && atOwn[li])) continue;
          keys.push_back({l.mapping, l.address + (l.callSite ? 1 : 0), placed ? l.callSite : true});
          continue;
        }
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

namespace {

// The profile of `msg` (a copy of an IR with `naming`'s section) or of `base` and `naming`
// (the section built later), named by the table as it was found.
std::unique_ptr<Profile> named(std::unique_ptr<capnp::MallocMessageBuilder> msg,
                               std::shared_ptr<const Profile> base, Naming naming) {
  std::shared_ptr<const SymbolTable> table = naming.columns.table;
  std::vector<std::string> warnings = std::move(naming.warnings);
  std::unique_ptr<Profile> out;
  if (msg) {
    naming.build(msg->getRoot<ir::Profile>().initSymbols());
    out = std::make_unique<Profile>(std::move(msg));
  } else {
    out =
        std::make_unique<Profile>(base, std::make_unique<DeferredSymbols>(base, std::move(naming)));
    // What its reader decoded for the model, which may point into the base's IR (kept).
    out->keepDecoded(base->takeDecoded());
  }
  out->warnings() = std::move(warnings);
  nameByTable(*out, std::move(table));
  return out;
}

}  // namespace

std::unique_ptr<Profile> withSymbols(const Profile& profile, const Model& model, Resolver& resolver,
                                     std::vector<std::string> warnings, bool warnUnnamed,
                                     const std::vector<SymbolKey>* keys) {
  Naming naming = nameAddresses(model, resolver, std::move(warnings), warnUnnamed, keys);
  return named(copyOf(profile), nullptr, std::move(naming));
}

std::unique_ptr<Profile> withSymbolsOf(std::unique_ptr<Profile> profile,
                                       std::unique_ptr<Model> model,
                                       std::shared_ptr<ModelCache> cache, Resolver& resolver,
                                       std::vector<std::string> warnings, bool later,
                                       bool warnUnnamed, const std::vector<SymbolKey>* keys) {
  Naming naming = nameAddresses(*model, resolver, std::move(warnings), warnUnnamed, keys);
  const bool deferred = later && modelReadsPartialIR(*profile);
  // A source that says so (ModelSource::takesAddressLayers) takes the layers this model read,
  // the same the named model's inner source would make again (a perf recording's: a tenth of
  // converting a g++ compile's recording to folded stacks). Only where the profile is about to
  // be modelled: a stash no model takes is held as long as the profile.
  if (deferred && cache && model->takesAddressLayers())
    cache->stash(kAddressLayers, model->releaseLayers());
  model.reset();  // gives back what it took of the profile's decoded data (Profile::takeDecoded)
  std::unique_ptr<Profile> out;
  if (deferred) {
    out = named(nullptr, std::shared_ptr<const Profile>(std::move(profile)), std::move(naming));
  } else {
    auto msg = copyOf(*profile);
    profile.reset();
    out = named(std::move(msg), nullptr, std::move(naming));
  }
  out->seedModelCache(std::move(cache));
  return out;
}

}  // namespace profpack
