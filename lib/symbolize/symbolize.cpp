// Symbolization on the format-neutral model: which addresses to look up (every location with
// self cost at its address; every caller's frame of a stack at address - 1, inside the call
// instruction), which binary a mapping names, the symbol section of the IR, and the model a
// symbolized profile gives.

#include "symbolize/symbolize.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>

#include "error.h"
#include "formats/registry.h"
#include "ir/column.h"
#include "symbolize/elf.h"
#include "util/text.h"

namespace profpack {

namespace {

constexpr const char* kFmt = "symbols";

struct Key {
  int64_t mapping;
  uint64_t address;
  bool returnAddress;
  bool operator<(const Key& o) const {
    if (mapping != o.mapping) return mapping < o.mapping;
    if (address != o.address) return address < o.address;
    return returnAddress < o.returnAddress;
  }
  bool operator==(const Key& o) const {
    return mapping == o.mapping && address == o.address && returnAddress == o.returnAddress;
  }
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = k.address * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(k.mapping) * 0xC2B2AE3D27D4EB4Full + (k.returnAddress ? 1 : 0);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

std::string baseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> searchPath(const SymbolizeOptions& options) {
  std::vector<std::string> dirs = options.binaryPath;
  if (const char* env = std::getenv("PROFPACK_BINARY_PATH")) {
    std::string_view s(env);
    while (!s.empty()) {
      size_t colon = s.find(':');
      std::string_view d = s.substr(0, colon);
      if (!d.empty()) dirs.emplace_back(d);
      if (colon == std::string_view::npos) break;
      s.remove_prefix(colon + 1);
    }
  }
  return dirs;
}

// Binaries opened so far, by path (a library's segments are several mappings of one file).
class Binaries {
 public:
  ElfBinary* get(const std::string& path, std::string& why) {
    auto it = open_.find(path);
    if (it == open_.end()) {
      std::string reason;
      auto b = ElfBinary::open(path, reason);
      it = open_.emplace(path, Entry{std::move(b), std::move(reason)}).first;
    }
    why = it->second.why;
    return it->second.binary.get();
  }

 private:
  struct Entry {
    std::unique_ptr<ElfBinary> binary;
    std::string why;
  };
  std::map<std::string, Entry> open_;
};

std::unique_ptr<capnp::MallocMessageBuilder> copyOf(const Profile& profile) {
  auto msg = newMessage(profile.flatSize());
  msg->setRoot(profile.root());
  return msg;
}

}  // namespace

namespace {

// Where the names of a mapping's addresses come from: its binary (symbolize), or the symbol
// sections of other profiles of the same objects (a merge of symbolized profiles).
class Resolver {
 public:
  virtual ~Resolver() = default;
  // Prepares mapping `m`; false, with `why`, where its addresses cannot be named. `used` is
  // the file its names come from, `buildId` that file's build id.
  virtual bool open(const Mapping& m, std::string& used, std::string& buildId,
                    std::string& why) = 0;
  // The inline chain of `address` of the mapping last opened (a caller's frame: of
  // address - 1), innermost first; null or empty where nothing names it.
  virtual const std::vector<SymbolFrame>* frames(const Mapping& m, uint64_t address,
                                                 bool returnAddress) = 0;
  // Problems met reading the file last opened, once per file ("" if none).
  virtual std::string problem() { return ""; }
  // The mapping last opened's addresses less this are the file's own (link-time) addresses.
  virtual uint64_t loadBias() const { return 0; }
};

// Names from ELF binaries: the path a mapping names, then the search path by base name; a
// function-id mapping from the binary that ran.
class ElfResolver : public Resolver {
 public:
  ElfResolver(const SymbolizeOptions& options, std::vector<uint64_t> entries)
      : options_(options), dirs_(searchPath(options)), entries_(std::move(entries)) {}

  bool open(const Mapping& mapping, std::string& used, std::string& buildId,
            std::string& why) override {
    bin_ = nullptr;
    bias_ = 0;
    ElfBinary* bin = nullptr;
    if (mapping.functionIds) {
      std::string reason;
      bin = open_.get(options_.binary, reason);
      used = options_.binary;
      if (!bin) why = options_.binary + ": " + reason;
    } else if (mapping.path.empty() || mapping.path[0] == '[') {
      why = "names no file";
    } else {
      std::vector<std::string> candidates;
      if (mapping.path[0] == '/') candidates.push_back(mapping.path);
      for (const std::string& d : dirs_) candidates.push_back(d + "/" + baseName(mapping.path));
      for (const std::string& c : candidates) {
        std::string reason;
        bin = open_.get(c, reason);
        if (bin) {
          used = c;
          break;
        }
        why += (why.empty() ? "" : "; ") + c + ": " + reason;
      }
      if (candidates.empty()) why = "a relative path, and no --binary-path directory holds it";
    }
    if (bin && !mapping.linkTime && !bin->loadBias(mapping.start, mapping.offset, bias_)) {
      why = used + ": no loadable segment holds file offset " + hexString(mapping.offset);
      bin = nullptr;
    }
    if (!bin) return false;
    buildId = bin->buildId();
    bin_ = bin;
    return true;
  }

  const std::vector<SymbolFrame>* frames(const Mapping& mapping, uint64_t address,
                                         bool returnAddress) override {
    if (mapping.functionIds) {
      if (returnAddress || address >= entries_.size() || entries_[address] == 0) return nullptr;
      return &bin_->lookupEntry(entries_[address]);
    }
    return &bin_->lookup(address - bias_ - (returnAddress ? 1 : 0));
  }

  std::string problem() override { return bin_ ? bin_->problem() : ""; }
  uint64_t loadBias() const override { return bias_; }

 private:
  const SymbolizeOptions& options_;
  const std::vector<std::string> dirs_;
  const std::vector<uint64_t> entries_;
  Binaries open_;
  ElfBinary* bin_ = nullptr;
  uint64_t bias_ = 0;
};

// The addresses of `model` to name: every location with self cost at its address (function
// ids: every location), every caller's frame of a stack as a return address.
std::vector<Key> addressesToName(const Model& model) {
  const bool ids = model.has(kCapFunctionIds);
  const LocationLayer& layer = model.locations();
  const size_t ne = model.events();
  std::vector<Key> keys;
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
    const StackLayer& st = model.stacks();
    for (size_t s = 0; s < st.stacks(); ++s)
      for (uint64_t k = st.start[s]; k + 1 < st.start[s + 1]; ++k) {
        const int64_t li = locationOf[st.frames[k]];
        if (li < 0) continue;
        const Location& l = layer.locations[static_cast<size_t>(li)];
        if (l.mapping >= 0) keys.push_back({l.mapping, l.address, true});
      }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// A copy of `profile` whose symbol section names `model`'s addresses as `resolver` finds them.
std::unique_ptr<Profile> withSymbols(const Profile& profile, const Model& model, Resolver& resolver,
                                     std::vector<std::string> warnings) {
  const std::vector<Key> keys = addressesToName(model);
  const LocationLayer& layer = model.locations();
  auto msg = copyOf(profile);
  auto sym = msg->getRoot<ir::Profile>().initSymbols();
  auto binaries = sym.initMappings(static_cast<unsigned>(layer.mappings.size()));
  ColumnWriter mappingCol, addressCol(ir::Column::Encoding::ZIGZAG_DELTA), returnCol, countCol;
  ColumnWriter functionCol, fileCol, lineCol;
  std::vector<std::string> names{""};
  std::unordered_map<std::string, uint64_t> nameIndex{{"", 0}};
  auto intern = [&](const std::string& s) {
    auto [it, added] = nameIndex.emplace(s, names.size());
    if (added) names.push_back(s);
    return it->second;
  };

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
      warnings.push_back(label + " not symbolized: " + why);
      k = end;
      continue;
    }
    binary.setPath(used);
    binary.setLoadBias(resolver.loadBias());
    binary.setBuildId(kj::arrayPtr(reinterpret_cast<const kj::byte*>(id.data()), id.size()));
    for (; k < end; ++k) {
      const Key& key = keys[k];
      const std::vector<SymbolFrame>* frames =
          resolver.frames(mapping, key.address, key.returnAddress);
      if (!frames || frames->empty()) continue;
      mappingCol.push(static_cast<uint64_t>(m));
      addressCol.push(key.address);
      returnCol.push(key.returnAddress ? 1 : 0);
      countCol.push(frames->size());
      for (const SymbolFrame& f : *frames) {
        functionCol.push(intern(f.function));
        fileCol.push(intern(f.file));
        lineCol.push(f.line);
      }
    }
    const std::string problem = resolver.problem();
    if (!problem.empty()) warnings.push_back(label + ": " + used + ": " + problem);
  }
  if (names.size() > (size_t{1} << 29) - 1)
    throw Error(Status::limit, kFmt, "more than 2^29 - 1 distinct symbol names");
  mappingCol.build(sym.initMapping());
  addressCol.build(sym.initAddress());
  returnCol.build(sym.initReturnAddress());
  countCol.build(sym.initFrameCount());
  functionCol.build(sym.initFunction());
  fileCol.build(sym.initFile());
  lineCol.build(sym.initLine());
  auto list = sym.initNames(static_cast<unsigned>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) list.set(static_cast<unsigned>(i), names[i]);

  auto out = std::make_unique<Profile>(std::move(msg));
  out->warnings() = std::move(warnings);
  return out;
}

// The model of `profile`'s own addresses, its symbol section (if any) left aside.
std::unique_ptr<Model> addressModel(const Profile& profile) {
  ModelOptions mo;
  mo.symbols = false;
  return buildModel(profile, mo);
}

}  // namespace

std::unique_ptr<Profile> symbolizeProfile(const Profile& profile, const SymbolizeOptions& options) {
  std::unique_ptr<Model> model = addressModel(profile);
  const bool ids = model->has(kCapFunctionIds);
  if (ids && options.binary.empty())
    throw Error(Status::invalidArgument, model->sourceFormat(),
                model->sourceFormat() +
                    " functions are ids: symbolizing needs the binary that ran (--binary)");
  if (!ids && !model->has(kCapAddresses) && !model->has(kCapNames))
    throw Error(Status::unsupported, model->sourceFormat(),
                model->sourceFormat() + " profiles hold no instruction addresses to symbolize");
  if (!ids && model->has(kCapNames)) {
    auto out = std::make_unique<Profile>(copyOf(profile));
    out->warnings().push_back(model->sourceFormat() +
                              " profiles name their functions already: nothing to symbolize");
    return out;
  }

  // The addresses to look up (function ids: their entry addresses in the binary).
  std::vector<uint64_t> entries =
      ids ? functionEntries(profile, options.binary) : std::vector<uint64_t>{};
  std::vector<std::string> warnings;
  if (ids) {
    // A trace of another build names ids its binary does not have (the one check a trace
    // allows: it records no build id).
    uint64_t beyond = 0, highest = 0;
    for (const Location& l : model->locations().locations)
      if (l.address >= entries.size()) {
        ++beyond;
        highest = std::max(highest, l.address);
      }
    if (beyond)
      warnings.push_back(options.binary + " instruments " +
                         std::to_string(entries.empty() ? 0 : entries.size() - 1) +
                         " functions, but the trace calls " + std::to_string(beyond) +
                         " function ids beyond them (up to " + std::to_string(highest) +
                         "): not the binary that ran?");
  }
  ElfResolver resolver(options, std::move(entries));
  return withSymbols(profile, *model, resolver, std::move(warnings));
}

namespace {

// The symbol section, decoded and checked.
struct SymbolTable {
  struct Frame {
    uint64_t function, file, line;
  };
  std::vector<std::string> names;
  std::vector<Frame> frames;
  std::vector<uint64_t> loadBias;  // per mapping (0 where it went unsymbolized)
  std::unordered_map<Key, std::pair<uint64_t, uint64_t>, KeyHash> entries;  // -> first, count

  explicit SymbolTable(ir::Symbols::Reader s) {
    auto fail = [](const std::string& what) {
      throw Error(Status::malformed, "ppk", "symbol section: " + what);
    };
    const uint64_t mappings = s.getMappings().size();
    for (auto b : s.getMappings()) loadBias.push_back(b.hasPath() ? b.getLoadBias() : 0);
    for (auto n : s.getNames()) names.emplace_back(n.cStr(), n.size());
    if (names.empty()) names.emplace_back();
    std::vector<uint64_t> mapping = decodeColumn(s.getMapping());
    std::vector<uint64_t> address = decodeColumn(s.getAddress());
    std::vector<uint64_t> ret = decodeColumn(s.getReturnAddress());
    std::vector<uint64_t> count = decodeColumn(s.getFrameCount());
    if (address.size() != mapping.size() || ret.size() != mapping.size() ||
        count.size() != mapping.size())
      fail("per-entry columns differ in length");
    std::vector<uint64_t> function = decodeColumn(s.getFunction());
    std::vector<uint64_t> file = decodeColumn(s.getFile());
    std::vector<uint64_t> line = decodeColumn(s.getLine());
    if (file.size() != function.size() || line.size() != function.size())
      fail("per-frame columns differ in length");
    uint64_t first = 0;
    for (size_t i = 0; i < mapping.size(); ++i) {
      if (mapping[i] >= mappings) fail("entry " + std::to_string(i) + " names no mapping");
      if (count[i] == 0 || count[i] > function.size() - first)
        fail("entry " + std::to_string(i) + " has frames beyond the frame columns");
      entries[{static_cast<int64_t>(mapping[i]), address[i], ret[i] != 0}] = {first, count[i]};
      first += count[i];
    }
    if (first != function.size()) fail("frames no entry holds");
    frames.reserve(function.size());
    for (size_t i = 0; i < function.size(); ++i) {
      if (function[i] >= names.size() || file[i] >= names.size())
        fail("frame " + std::to_string(i) + " names a string beyond the name list");
      frames.push_back({function[i], file[i], line[i]});
    }
  }
};

class SymbolizedSource : public ModelSource {
 public:
  SymbolizedSource(std::unique_ptr<ModelSource> inner, std::shared_ptr<const SymbolTable> table)
      : inner_(std::move(inner)), tablePtr_(std::move(table)), table_(*tablePtr_) {}

  uint32_t capabilities() const override {
    const uint32_t inner = inner_->capabilities();
    // Inline chains give arcs where the source has none (an inlined function's caller).
    return inner | kCapNames | kCapLines | ((inner & kCapFunctionIds) ? 0u : kCapCallArcs);
  }

  void functions(FunctionLayer& out) override {
    if (inner_->capabilities() & kCapFunctionIds) {
      renameIds(out);
      return;
    }
    FunctionLayer in;
    inner_->functions(in);
    inner_->locations(locations_);
    // Each symbolized mapping's load bias, so that writers can give the file's own addresses.
    for (size_t m = 0; m < locations_.mappings.size() && m < table_.loadBias.size(); ++m)
      if (!locations_.mappings[m].linkTime) locations_.mappings[m].loadBias = table_.loadBias[m];
    out.eventNames = in.eventNames;
    out.eventLongNames = in.eventLongNames;
    out.unitsPerSecond = in.unitsPerSecond;
    out.samplePeriodNanos = in.samplePeriodNanos;
    out.threads = in.threads;
    out.sharedThreads = in.sharedThreads;
    out.description = in.description;
    ne_ = out.events();
    inner_ = releaseAfterStacks(std::move(inner_), in, out);
  }

  // Functions that are ids keep every figure of the source (call counts, times, arcs): each
  // takes the name, file and line of its entry's outermost frame (the function itself). Per-line
  // costs: each function's self cost on the line where it starts (an editor's gutter shows the
  // function's time there).
  void renameIds(FunctionLayer& out) {
    inner_->functions(out);
    inner_->locations(locations_);
    summary_ = inner_->summary();
    std::vector<bool> file(table_.names.size(), false);
    std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> lineCost, functionLine;
    for (const Location& l : locations_.locations) {
      if (l.function < 0 || static_cast<size_t>(l.function) >= out.functions.size()) continue;
      auto it = table_.entries.find({l.mapping, l.address, false});
      if (it == table_.entries.end()) continue;
      const auto [first, count] = it->second;
      const SymbolTable::Frame& fr = table_.frames[first + count - 1];
      FunctionRow& row = out.functions[static_cast<size_t>(l.function)];
      row.name = table_.names[fr.function];
      row.file = table_.names[fr.file];
      row.line = fr.line;
      const size_t ne = out.events(), f = static_cast<size_t>(l.function);
      if (fr.line != 0 && fr.file != 0 && f * ne + ne <= out.self.size()) {
        std::vector<uint64_t> cost(out.self.begin() + f * ne, out.self.begin() + (f + 1) * ne);
        lineCost[{fr.file, fr.line}].resize(ne, 0);
        for (size_t e = 0; e < ne; ++e) lineCost[{fr.file, fr.line}][e] += cost[e];
        functionLine[{f, fr.line}] = std::move(cost);
      }
      if (fr.file != 0 && !file[fr.file]) {
        file[fr.file] = true;
        ++files_;
      }
    }
    for (auto& [key, cost] : lineCost)
      lines_[table_.names[key.first]].push_back({key.second, std::move(cost)});
    for (auto& [key, cost] : functionLine) {
      functionLines_.rows.push_back({key.first, key.second});
      functionLines_.self.insert(functionLines_.self.end(), cost.begin(), cost.end());
    }
    functionCount_ = out.functions.size();
    renamed_ = true;
  }

  Summary summary() override {
    if (renamed_) {
      Summary s = summary_;
      s.files = files_;
      return s;
    }
    Summary s = summary_;
    s.functions = functionCount_;
    s.files = files_;
    return s;
  }
  void lines(std::unordered_map<std::string, std::vector<LineCost>>& out) override {
    out = std::move(lines_);
  }
  void functionLines(FunctionLineLayer& out) override { out = std::move(functionLines_); }
  void locations(LocationLayer& out) override { out = std::move(locations_); }
  void stacks(StackLayer& out) override {
    if (renamed_)
      inner_->stacks(out);
    else
      out = std::move(stacks_);
  }
  uint64_t timelineOrigin() override { return inner_->timelineOrigin(); }
  void spans(SpanSink& sink) override { inner_->spans(sink); }

 private:
  // One chain of functions of this model, outermost first, and where the innermost is.
  struct Chain {
    std::vector<uint64_t> functions;
    std::vector<uint64_t> lines;  // per function: the line it is at (0 if unknown)
    uint64_t file = 0, line = 0;  // name index, 0 if unknown
  };

  // Builds every layer from the inner source's (which is done with afterwards).
  std::unique_ptr<ModelSource> releaseAfterStacks(std::unique_ptr<ModelSource> inner,
                                                  const FunctionLayer& in, FunctionLayer& out) {
    StackLayer innerStacks;
    const bool stacks = (inner->capabilities() & kCapStacks) != 0;
    if (stacks) inner->stacks(innerStacks);
    summary_ = inner->summary();

    std::unordered_map<std::string, uint64_t> functionIndex;  // name \0 object -> function
    auto function = [&](const std::string& name, const std::string& file,
                        const std::string& object) {
      auto [it, added] = functionIndex.emplace(name + '\0' + object, out.functions.size());
      if (added) out.addFunction({name, file, object});
      return it->second;
    };
    const std::vector<Location>& locs = locations_.locations;
    std::vector<int64_t> locationOf(in.functions.size(), -1);
    for (size_t i = 0; i < locs.size(); ++i)
      if (!locs[i].callSite && locs[i].function >= 0 &&
          static_cast<size_t>(locs[i].function) < in.functions.size() &&
          locationOf[static_cast<size_t>(locs[i].function)] < 0)
        locationOf[static_cast<size_t>(locs[i].function)] = static_cast<int64_t>(i);

    std::vector<Chain> chains;
    std::vector<int64_t> memo[2];
    memo[0].assign(in.functions.size(), -1);
    memo[1].assign(in.functions.size(), -1);
    // The chain of inner function f at location li (-1: none) (its address; a caller's frame
    // at address - 1, which a call-site location is at already).
    auto chainAt = [&](uint64_t f, int64_t li, bool ret) {
      Chain c;
      const FunctionRow& row = in.functions[f];
      auto it = table_.entries.end();
      if (li >= 0) {
        const Location& l = locs[static_cast<size_t>(li)];
        it = table_.entries.find({l.mapping, l.address + (l.callSite ? 1 : 0), ret});
      }
      if (it == table_.entries.end()) {
        c.functions.push_back(function(row.name, row.file, row.object));
        c.lines.push_back(0);
      } else {
        const auto [first, count] = it->second;
        for (uint64_t i = first + count; i-- > first;) {  // outermost first
          const SymbolTable::Frame& fr = table_.frames[i];
          c.functions.push_back(
              function(table_.names[fr.function], table_.names[fr.file], row.object));
          c.lines.push_back(fr.line);
        }
        c.file = table_.frames[first].file;
        c.line = table_.frames[first].line;
      }
      chains.push_back(std::move(c));
      return static_cast<int64_t>(chains.size() - 1);
    };
    auto chainOf = [&](uint64_t f, bool ret) -> const Chain& {
      if (memo[ret][f] < 0) memo[ret][f] = chainAt(f, locationOf[f], ret);
      return chains[static_cast<size_t>(memo[ret][f])];
    };
    // Per location: its chain (-1: none), and the layer's inline frames. A call site no
    // frame is at gets none (it would name its address as a function).
    std::vector<int64_t> chainOfLocation(locs.size(), -1);
    std::vector<bool> used(locs.size(), false);
    if (innerStacks.locations.size() == innerStacks.frames.size())
      for (uint64_t li : innerStacks.locations)
        if (li < used.size()) used[li] = true;
    locations_.inlined.clear();
    locations_.inlineStart.assign(1, 0);

    // Self cost, lines and locations: each location's own address.
    std::map<std::pair<uint64_t, uint64_t>, size_t> inlineArcs;  // (caller, callee) -> edge
    std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> lineCost;  // (file, line)
    std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> functionLine;
    for (size_t i = 0; i < locs.size(); ++i) {
      Location& l = locations_.locations[i];
      if (l.function < 0 || static_cast<size_t>(l.function) >= in.functions.size() ||
          (l.callSite && !used[i])) {
        l.function = -1;
        locations_.inlined.push_back({-1, l.line});
        locations_.inlineStart.push_back(locations_.inlined.size());
        continue;
      }
      const uint64_t* self = locations_.self.data() + i * ne_;
      // An address only ever seen in callers' frames was looked up as a return address.
      bool leaf = !stacks;
      for (size_t e = 0; e < ne_ && !leaf; ++e) leaf = self[e] != 0;
      const uint64_t inner = static_cast<uint64_t>(l.function);
      const bool ret = l.callSite || !leaf;
      chainOfLocation[i] = chainAt(inner, static_cast<int64_t>(i), ret);
      if (locationOf[inner] == static_cast<int64_t>(i) && memo[ret][inner] < 0)
        memo[ret][inner] = chainOfLocation[i];
      const Chain& c = chains[static_cast<size_t>(chainOfLocation[i])];
      l.function = static_cast<int64_t>(c.functions.back());
      l.line = c.line;
      for (size_t k = 0; k < c.functions.size(); ++k)
        locations_.inlined.push_back({static_cast<int64_t>(c.functions[k]), c.lines[k]});
      locations_.inlineStart.push_back(locations_.inlined.size());
      if (l.callSite) continue;
      bool cost = false;
      for (size_t e = 0; e < ne_ && !cost; ++e) cost = self[e] != 0;
      if (c.line != 0 && cost) {
        auto& lc = lineCost[{c.file, c.line}];
        auto& fc = functionLine[{c.functions.back(), c.line}];
        lc.resize(ne_, 0);
        fc.resize(ne_, 0);
        for (size_t e = 0; e < ne_; ++e) {
          lc[e] += self[e];
          fc[e] += self[e];
        }
      }
      if (!stacks) {
        // No stacks: self on the innermost, inclusive on the whole chain, and an arc from each
        // function of the chain to the one inlined into it (what a caller's inclusive cost
        // is made of, for writers that add it up from arcs).
        for (size_t e = 0; e < ne_; ++e) out.self[c.functions.back() * ne_ + e] += self[e];
        std::vector<uint64_t> seen;
        for (size_t k = 0; k < c.functions.size(); ++k) {
          const uint64_t f = c.functions[k];
          if (std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
          seen.push_back(f);
          for (size_t e = 0; e < ne_; ++e) out.inclusive[f * ne_ + e] += self[e];
          if (k == 0) continue;
          auto [it, added] = inlineArcs.try_emplace({c.functions[k - 1], f}, out.edges.size());
          if (added) out.addEdge(c.functions[k - 1], f, 0);
          uint64_t* cost = out.edgeCost(it->second);
          for (size_t e = 0; e < ne_; ++e) cost[e] += self[e];
        }
      }
    }
    for (auto& [key, cost] : lineCost)
      lines_[table_.names[key.first]].push_back({key.second, std::move(cost)});
    for (auto& [key, cost] : functionLine) {
      functionLines_.rows.push_back({key.first, key.second});
      functionLines_.self.insert(functionLines_.self.end(), cost.begin(), cost.end());
    }

    if (stacks) {
      // Every stack with each frame expanded into its inline chain, each of the chain's frames
      // at the frame's location where the inner source has them; stacks that become equal
      // (functions and locations) are one.
      const bool frameLocations = innerStacks.locations.size() == innerStacks.frames.size();
      std::unordered_map<std::string, uint64_t> stackIndex;
      std::vector<uint64_t> frames, at;
      for (size_t s = 0; s < innerStacks.stacks(); ++s) {
        frames.clear();
        at.clear();
        const uint64_t b = innerStacks.start[s], e = innerStacks.start[s + 1];
        for (uint64_t k = b; k < e; ++k) {
          const uint64_t f = innerStacks.frames[k];
          if (f >= in.functions.size())
            throw Error(Status::internal, kFmt, "a stack names a function beyond the model");
          const uint64_t li = frameLocations ? innerStacks.locations[k] : locs.size();
          const Chain& c = li < locs.size() && chainOfLocation[li] >= 0
                               ? chains[static_cast<size_t>(chainOfLocation[li])]
                               : chainOf(f, k + 1 < e);
          frames.insert(frames.end(), c.functions.begin(), c.functions.end());
          if (frameLocations) at.insert(at.end(), c.functions.size(), li);
        }
        std::string key(reinterpret_cast<const char*>(frames.data()), frames.size() * 8);
        key.append(reinterpret_cast<const char*>(at.data()), at.size() * 8);
        auto [it, added] = stackIndex.emplace(std::move(key), stacks_.stacks());
        if (added) {
          stacks_.frames.insert(stacks_.frames.end(), frames.begin(), frames.end());
          stacks_.locations.insert(stacks_.locations.end(), at.begin(), at.end());
          stacks_.start.push_back(stacks_.frames.size());
          stacks_.values.resize(stacks_.values.size() + ne_, 0);
        }
        for (size_t ev = 0; ev < ne_; ++ev)
          stacks_.values[it->second * ne_ + ev] += innerStacks.values[s * ne_ + ev];
      }
      // Functions from the stacks: self innermost, inclusive and arcs once per stack.
      std::vector<uint64_t> seen(out.functions.size(), ~uint64_t{0});
      const uint64_t nf = out.functions.size();
      std::unordered_map<uint64_t, size_t> edgeIndex;  // caller * nf + callee -> edge
      std::vector<uint64_t> edgeSeen;
      for (size_t s = 0; s < stacks_.stacks(); ++s) {
        const uint64_t* v = stacks_.values.data() + s * ne_;
        const uint64_t b = stacks_.start[s], e = stacks_.start[s + 1];
        if (b == e) continue;
        const uint64_t leaf = stacks_.frames[e - 1];
        for (size_t ev = 0; ev < ne_; ++ev) out.self[leaf * ne_ + ev] += v[ev];
        for (uint64_t k = b; k < e; ++k) {
          const uint64_t f = stacks_.frames[k];
          if (seen[f] != s) {
            seen[f] = s;
            for (size_t ev = 0; ev < ne_; ++ev) out.inclusive[f * ne_ + ev] += v[ev];
          }
          if (k == b) continue;
          const uint64_t caller = stacks_.frames[k - 1];
          auto [it, added] = edgeIndex.emplace(caller * nf + f, out.edges.size());
          if (added) {
            out.addEdge(caller, f, 0);
            edgeSeen.push_back(~uint64_t{0});
          }
          if (edgeSeen[it->second] != s) {
            edgeSeen[it->second] = s;
            uint64_t* cost = out.edgeCost(it->second);
            for (size_t ev = 0; ev < ne_; ++ev) cost[ev] += v[ev];
          }
        }
      }
    }
    functionCount_ = out.functions.size();
    files_ = 0;
    {
      std::vector<bool> file(table_.names.size(), false);
      for (const SymbolTable::Frame& f : table_.frames)
        if (f.file != 0 && !file[f.file]) {
          file[f.file] = true;
          ++files_;
        }
    }
    return inner;
  }

  std::unique_ptr<ModelSource> inner_;
  std::shared_ptr<const SymbolTable> tablePtr_;
  const SymbolTable& table_;
  size_t ne_ = 0;
  Summary summary_;
  uint64_t functionCount_ = 0, files_ = 0;
  bool renamed_ = false;
  LocationLayer locations_;
  StackLayer stacks_;
  std::unordered_map<std::string, std::vector<LineCost>> lines_;
  FunctionLineLayer functionLines_;
};

}  // namespace

std::unique_ptr<ModelSource> symbolizedSource(std::unique_ptr<ModelSource> inner,
                                              const Profile& profile, ModelCache* cache) {
  auto decode = [&] { return SymbolTable(profile.root().getSymbols()); };
  std::shared_ptr<const SymbolTable> table = cache
                                                 ? cache->get<SymbolTable>("symbol section", decode)
                                                 : std::make_shared<const SymbolTable>(decode());
  return std::make_unique<SymbolizedSource>(std::move(inner), std::move(table));
}

// Names by object: the mapping's file as the profile records it, and the address as the
// object lays it out (a run-time address less the mapping's start, plus its file offset), so
// that the same instruction has the same key in every run of the program.
struct SymbolMemory::Names {
  struct Object {
    std::string used, buildId;  // the file the names came from, its build id
    uint64_t loadBias = 0;      // of the first profile's mapping of it
  };
  std::map<std::string, Object> objects;  // by recorded path
  std::map<std::tuple<std::string, uint64_t, bool>, std::vector<SymbolFrame>> frames;

  static uint64_t relative(const Mapping& m, uint64_t address) {
    return m.linkTime ? address : address - m.start + m.offset;
  }
};

namespace {

class MemoryResolver : public Resolver {
 public:
  explicit MemoryResolver(const SymbolMemory::Names& names) : names_(names) {}
  bool open(const Mapping& m, std::string& used, std::string& buildId, std::string& why) override {
    auto it = names_.objects.find(m.path);
    if (it == names_.objects.end()) {
      why = "no symbolized profile of the merge names it";
      return false;
    }
    used = it->second.used;
    buildId = it->second.buildId;
    bias_ = m.linkTime ? 0 : it->second.loadBias;
    return true;
  }
  uint64_t loadBias() const override { return bias_; }
  const std::vector<SymbolFrame>* frames(const Mapping& m, uint64_t address,
                                         bool returnAddress) override {
    auto it =
        names_.frames.find({m.path, SymbolMemory::Names::relative(m, address), returnAddress});
    return it == names_.frames.end() ? nullptr : &it->second;
  }

 private:
  const SymbolMemory::Names& names_;
  uint64_t bias_ = 0;
};

}  // namespace

SymbolMemory::SymbolMemory() : names_(std::make_unique<Names>()) {}
SymbolMemory::~SymbolMemory() = default;

bool SymbolMemory::empty() const { return names_->objects.empty(); }

void SymbolMemory::add(const Profile& profile) {
  if (!profile.partialRoot().hasSymbols()) return;
  const std::unique_ptr<Model> model = addressModel(profile);
  const SymbolTable table(profile.root().getSymbols());
  const LocationLayer& layer = model->locations();
  auto binaries = profile.root().getSymbols().getMappings();
  for (unsigned m = 0; m < binaries.size() && m < layer.mappings.size(); ++m) {
    if (binaries[m].getPath().size() == 0) continue;
    auto id = binaries[m].getBuildId();
    names_->objects.try_emplace(
        layer.mappings[m].path,
        Names::Object{binaries[m].getPath().cStr(), std::string(id.begin(), id.end()),
                      binaries[m].getLoadBias()});
  }
  for (const auto& [key, span] : table.entries) {
    if (static_cast<uint64_t>(key.mapping) >= layer.mappings.size()) continue;
    const Mapping& m = layer.mappings[static_cast<size_t>(key.mapping)];
    auto [it, added] =
        names_->frames.try_emplace({m.path, Names::relative(m, key.address), key.returnAddress});
    if (!added) continue;  // the first profile's names win
    for (uint64_t i = span.first; i < span.first + span.second; ++i) {
      const SymbolTable::Frame& f = table.frames[i];
      it->second.push_back({table.names[f.function], table.names[f.file], f.line});
    }
  }
}

std::unique_ptr<Profile> SymbolMemory::apply(std::unique_ptr<Profile> profile) const {
  if (empty()) return profile;
  const std::unique_ptr<Model> model = addressModel(*profile);
  if (!model->has(kCapAddresses) || model->has(kCapNames) || model->has(kCapFunctionIds))
    return profile;
  MemoryResolver resolver(*names_);
  std::vector<std::string> warnings = profile->warnings();
  return withSymbols(*profile, *model, resolver, std::move(warnings));
}

}  // namespace profpack
