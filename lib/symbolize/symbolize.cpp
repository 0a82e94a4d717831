// Symbolization's entry points: a profile named from its binaries, on request (symbolize) or
// when it is read.

#include "symbolize/symbolize.h"

#include <algorithm>
#include <optional>

#include "error.h"
#include "formats/registry.h"
#include "symbolize/binaries.h"
#include "symbolize/kernel.h"
#include "symbolize/writer.h"

namespace profpack {

namespace {

// The kernel release the profile says it was recorded on (its description's "osrelease"), or "".
std::string recordedRelease(const Model& model) {
  for (const auto& [key, value] : model.description())
    if (key == "osrelease") return value;
  return "";
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
  resolver.setRecordedKernelRelease(recordedRelease(*model));
  return withSymbols(profile, *model, resolver, std::move(warnings));
}

struct NamingAhead::Impl {
  explicit Impl(const SymbolizeOptions& o) : options(o), resolver(options, {}) {}
  const SymbolizeOptions options;
  ElfResolver resolver;  // reads `options`
};

NamingAhead::NamingAhead(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NamingAhead::~NamingAhead() = default;

std::unique_ptr<NamingAhead> namingAhead(const std::vector<Mapping>& mappings,
                                         const SymbolizeOptions& options) {
  if (mappings.empty()) return nullptr;
  auto impl = std::make_unique<NamingAhead::Impl>(options);
  impl->resolver.openAhead(mappings);
  return std::make_unique<NamingAhead>(std::move(impl));
}

std::unique_ptr<Profile> nameFromBinaries(std::unique_ptr<Profile> profile,
                                          const SymbolizeOptions& options, NamingAhead* ahead) {
  if (profile->hasSymbols()) return profile;
  // Decided on the capabilities first: a profile that has names, or no addresses, is kept as
  // it is without building its model (a Callgrind profile's costs a scan of its cost table).
  const uint32_t caps = modelCapabilities(*profile);
  if (!(caps & kCapAddresses) || (caps & kCapNames) || (caps & kCapFunctionIds)) return profile;
  auto cache = std::make_shared<ModelCache>();
  std::unique_ptr<Model> model = addressModel(*profile, cache);
  if (!model->has(kCapAddresses) || model->has(kCapNames) || model->has(kCapFunctionIds))
    return profile;
  std::optional<ElfResolver> own;
  ElfResolver& resolver =
      ahead ? ahead->impl().resolver : own.emplace(options, std::vector<uint64_t>{});
  resolver.setRecordedKernelRelease(recordedRelease(*model));
  // Whether any mapping's binary is here, before the IR is copied for the names.
  bool found = false;
  const std::vector<Mapping>& mappings = model->locations().mappings;
  // The kernel's table (read on a thread of its own, prefetch()) is waited for last, once the
  // binaries' debug information has been read here.
  const std::vector<SymbolKey> keys = addressesToName(*model);
  std::vector<int64_t> toName = mappingsToName(keys);
  std::stable_partition(toName.begin(), toName.end(), [&](int64_t m) {
    return !isKernelMapping(mappings[static_cast<size_t>(m)].path);
  });
  for (const int64_t m : toName) resolver.prefetch(mappings[static_cast<size_t>(m)]);
  for (const int64_t m : toName) {
    std::string used, id, why;
    found |= resolver.open(mappings[static_cast<size_t>(m)], used, id, why);
  }
  std::vector<std::string> warnings = profile->warnings();
  for (const std::string& s : resolver.skipped()) warnings.push_back(s);
  if (!found) {
    profile->warnings() = std::move(warnings);
    return profile;
  }
  return withSymbolsOf(std::move(profile), std::move(model), std::move(cache), resolver,
                       std::move(warnings), options.deferSection, /*warnUnnamed=*/false, &keys);
}

}  // namespace profpack
