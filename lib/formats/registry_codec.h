// The shape of the registry's rows (registry.cpp): what a format offers the registry. Only the
// registry includes this.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "formats/codec.h"
#include "model/model.h"
#include "profile.h"

namespace profpack {

// One format: how to recognise it, read it, write it and see it as a model.
struct Codec {
  FormatId id;
  const char* name;
  ir::Format ir;  // what ir::Profile.format says of a profile read from it
  // The formats whose IR `write` takes: those of the same family (Callgrind and Cachegrind
  // share their cost tables). ppk takes every IR.
  FormatId family;
  bool (*detect)(std::span<const uint8_t> data);
  std::unique_ptr<Profile> (*read)(std::span<const uint8_t> data, const ReadOptions& options);
  // Writes an IR of the family; for another IR, refuses with what the profile lacks, unless
  // `writeModel` is given.
  void (*write)(const Profile& profile, const WriteOptions& options, Sink& out);
  // Writes a profile of another family from its model (null: none). Formats that are only
  // written (folded stacks, trace events) have this alone.
  void (*writeModel)(const Model& model, const ModelFor& perThread, const WriteOptions& options,
                     Sink& out);
  std::unique_ptr<ModelSource> (*model)(const Profile& profile, const ModelOptions& options);
  // Formats whose functions are ids that a binary names (ModelOptions::binary): the entry
  // address of each id in that binary (index = id, 0 where unknown); null for the others.
  std::vector<uint64_t> (*functionEntries)(const std::string& binary);
  // What a profile of another family lacks for this format, where it cannot be written from a
  // model ("stack samples": "callgrind holds no stack samples ...").
  const char* needs = nullptr;
  // The format a merge of this format's profiles is kept in (written from the merged model
  // and read back), unless `merge` merges them itself.
  FormatId mergeAs = FormatId::callgrind;
  std::unique_ptr<FormatMerge> (*merge)() = nullptr;
  bool holdsSigned = false;           // its profiles can hold negative costs (a difference)
  bool writeModelReadsEdges = true;   // `writeModel` reads the model's call edges
  bool writeModelReadsStacks = true;  // `writeModel` reads the model's stacks
  // Reads several files that are parts of one profile (a file per thread); null: the format's
  // files are whole profiles each.
  std::unique_ptr<Profile> (*readParts)(std::span<const std::span<const uint8_t>> files,
                                        const ReadOptions& options) = nullptr;
  // The header lines a difference kept in this format says of its two inputs (null: none).
  HeaderPairs (*differenceHeader)(const Model& base, const std::string& baseName,
                                  const Model& current, const std::string& currentName) = nullptr;
  // The binaries a profile's samples are in, where the format lists them ahead of the samples
  // (a path and a build id each), read without reading the profile (null: it lists none).
  std::vector<Mapping> (*binariesAhead)(std::span<const uint8_t> data) = nullptr;
  // `model` reads only what Profile::partialRoot() holds, so a symbol section added later
  // (withSymbolsOf) need not be built for it (false: its models read root()).
  bool modelReadsPartialIR = false;
  // `writeModel` reads the stacks' frames, not only their locations (ModelOptions::stackFrames).
  bool writeModelReadsFrames = true;
  // Reads a directory that is one profile of this format (perf record --threads: a header
  // file and a file of records per thread); null where the files are not this format's.
  std::unique_ptr<Profile> (*readDirectory)(const DirectoryFiles& dir,
                                            const ReadOptions& options) = nullptr;
};

// The rows (registry.cpp), for the registry's other files: every format's; the one of `f`
// (null for FormatId::unknown); the one of the format `profile` was read from (Status::malformed
// where its IR names none).
std::span<const Codec> codecs();
const Codec* codecFor(FormatId f);
const Codec& codecOf(const Profile& profile);

}  // namespace profpack
