// The IR writer of symbolization: which addresses of a profile's model to look up, and a copy
// of the profile with a symbol section (lib/ir/profile.capnp, Symbols) of what a Resolver names
// them. Resolvers: ELF binaries (binaries.h) and the names of other profiles (memory.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "profile.h"
#include "symbolize/elf.h"
#include "symbolize/table.h"

namespace profpack {

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
  // May start reading what mapping `m` needs on another thread, ahead of open(m).
  virtual void prefetch(const Mapping& m) { (void)m; }
  // Problems met reading the file last opened, once per file ("" if none).
  virtual std::string problem() { return ""; }
  // The mapping last opened's addresses less this are the file's own (link-time) addresses.
  virtual uint64_t loadBias() const { return 0; }
};

// The model of `profile`'s own addresses, its symbol section (if any) left aside; without call
// edges, which naming does not read.
// `cache`: where it keeps what the models after it may share (null: nowhere).
std::unique_ptr<Model> addressModel(const Profile& profile,
                                    std::shared_ptr<ModelCache> cache = nullptr);

// The addresses of `model` to name: every location with self cost at its address (function
// ids: every location), every caller's frame of a stack as a return address; sorted.
std::vector<SymbolKey> addressesToName(const Model& model);

// Which mappings `keys` (addressesToName()) are of, ascending.
std::vector<int64_t> mappingsToName(const std::vector<SymbolKey>& keys);

// A copy of `profile` whose symbol section names `model`'s addresses as `resolver` finds them.
// Its warnings: `warnings`, then (with `warnUnnamed`) one per mapping left unnamed and why, and
// the problems met reading its files (damaged DWARF, debug information not found).
// `keys`: addressesToName(model), where the caller has it already.
std::unique_ptr<Profile> withSymbols(const Profile& profile, const Model& model, Resolver& resolver,
                                     std::vector<std::string> warnings, bool warnUnnamed = true,
                                     const std::vector<SymbolKey>* keys = nullptr);

// withSymbols() for a profile the caller gives up, with `model` (addressModel(*profile,
// cache), which this frees); the result's first model of names takes `cache`
// (Profile::seedModelCache). `later`, for a profile that will be queried or converted rather
// than written as .ppk, and where its format's models read only the partial IR
// (modelReadsPartialIR): the result keeps `profile`'s IR, and the copy with the symbol section
// is built when the IR is first asked for (the same bytes then). Otherwise it is built now and
// `profile` freed.
std::unique_ptr<Profile> withSymbolsOf(std::unique_ptr<Profile> profile,
                                       std::unique_ptr<Model> model,
                                       std::shared_ptr<ModelCache> cache, Resolver& resolver,
                                       std::vector<std::string> warnings, bool later,
                                       bool warnUnnamed = true,
                                       const std::vector<SymbolKey>* keys = nullptr);

// A copy of `profile`'s IR.
std::unique_ptr<capnp::MallocMessageBuilder> copyOf(const Profile& profile);

}  // namespace profpack
