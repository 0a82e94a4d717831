// The names of symbolized profiles kept to name a merge of them (a format's own merge keeps
// addresses, not names).

#include <map>
#include <tuple>

#include "symbolize/symbolize.h"
#include "symbolize/table.h"
#include "symbolize/writer.h"

namespace profpack {

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
    // A frame at its own address that a profile named by an earlier build holds as a return
    // address (perf's user frame under kernel frames, until 2026-11-29): its old name.
    if (it == names_.frames.end() && !returnAddress)
      it = names_.frames.find({m.path, SymbolMemory::Names::relative(m, address), true});
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
  if (!profile.hasSymbols()) return;
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
  for (size_t e = 0; e < table.entries.size(); ++e) {
    const SymbolKey& key = table.entries.key(e);
    const SymbolEntries::Span& span = table.entries.span(e);
    if (static_cast<uint64_t>(key.mapping) >= layer.mappings.size()) continue;
    const Mapping& m = layer.mappings[static_cast<size_t>(key.mapping)];
    auto [it, added] =
        names_->frames.try_emplace({m.path, Names::relative(m, key.address), key.returnAddress});
    if (!added) continue;  // the first profile's names win
    for (uint64_t i = span.first; i < span.first + span.second; ++i) {
      const SymbolTable::Frame& f = table.frames[i];
      it->second.push_back({table.names[f.function], table.names[f.file], f.line, f.declaration});
    }
  }
}

std::unique_ptr<Profile> SymbolMemory::apply(std::unique_ptr<Profile> profile) const {
  if (empty()) return profile;
  auto cache = std::make_shared<ModelCache>();
  std::unique_ptr<Model> model = addressModel(*profile, cache);
  if (!model->has(kCapAddresses) || model->has(kCapNames) || model->has(kCapFunctionIds))
    return profile;
  MemoryResolver resolver(*names_);
  std::vector<std::string> warnings = profile->warnings();
  return withSymbolsOf(std::move(profile), std::move(model), std::move(cache), resolver,
                       std::move(warnings), /*later=*/false);
}

}  // namespace profpack
