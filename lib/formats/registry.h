// The format registry: the one place that knows the list of formats. Everything above it
// (the model, queries, the C ABI, the CLI) reaches a format through these calls only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/codec.h"
#include "model/model.h"

namespace profpack {

const char* formatName(FormatId f);              // "ppk", "callgrind", ... ("unknown")
FormatId formatFromName(std::string_view name);  // unknown if not a name
// The format a file's name says it holds, by its ending (".pb.gz", ".ppk", ...) or the name a
// profiler gives it ("callgrind.out.123"); unknown where the name says none. Used to choose an
// output format, never to read a file (reading detects the format from the content).
FormatId formatForFileName(std::string_view path);
// What a format is, for the C API's profpack_format_describe(): whether profiles are read and
// written in it, the endings of the file names that say it (".pb.gz .pprof .pb") and the names
// its profiler gives files ("callgrind.out.*"), space-separated ("" for none), and a short
// description. Static strings. False for a value that is no format.
struct FormatFacts {
  bool readable = false;
  bool writable = false;
  const char* endings = "";
  const char* fileNames = "";
  const char* about = "";
  bool writesLines = false;  // writable, and its writer writes source files or lines
};
bool formatFacts(FormatId f, FormatFacts& out);
// Every format's write parameters (each declared in its format's folder), the .ppk level
// first; keys and names are distinct.
const std::vector<const WriteParam*>& writeParams();
// The format a profile was read from (FormatId::unknown for an IR that names none).
FormatId formatOf(const Profile& profile);
// When the profile says it was taken, in seconds since 1970 UTC (pprof's time_nanos); 0 where
// its format records no such time or it gives none.
int64_t profileTime(const Profile& profile);

// The format-neutral model of a profile, for `options` (a thread, a binary to name functions
// from). Status::unsupported for a binary where the format does not take one;
// Status::invalidArgument for a thread the profile does not have.
std::unique_ptr<Model> buildModel(const Profile& profile, const ModelOptions& options);
// The capabilities of the profile's model (without its symbol section's names), from its
// source alone: no layer is built.
uint32_t modelCapabilities(const Profile& profile);
// Whether the models of `profile`'s format read only its partial root (Profile::partialRoot()),
// never building a deferred part of its IR.
bool modelReadsPartialIR(const Profile& profile);

// Formats whose functions are ids (XRay): the entry address of each id in `binary` (index =
// id, 0 where unknown). Status::unsupported for other formats; Status::io or malformed for a
// binary that cannot be read as the format needs.
std::vector<uint64_t> functionEntries(const Profile& profile, const std::string& binary);

// How an archive (lib/archive/) keeps a member of `profile` whose IR message is `message`:
// the bytes its format's writer writes, where reading them back gives `message` byte for byte
// (`coded`: then coded by the format's archive coding); nothing where they would not, or the
// message is large (it is kept as it is). A format's coding is used from the archive revision
// that brought it on (`archiveRevision`: the archive's). profileFromArchiveForm reads such
// bytes back; Status::malformed for bytes that are no such form, or a coding the archive's
// revision has not.
struct ArchiveForm {
  std::string bytes;
  bool coded = false;
};
std::optional<ArchiveForm> archiveForm(const Profile& profile, const std::string& message,
                                       uint32_t archiveRevision);
std::unique_ptr<Profile> profileFromArchiveForm(FormatId format, const std::string& bytes,
                                                bool coded, uint32_t archiveRevision);

// Detects the format from the first bytes (never from a file name).
FormatId detectFormat(std::span<const uint8_t> data);

std::unique_ptr<Profile> readProfile(std::span<const uint8_t> data, const ReadOptions& options);
// Refuses a stream (read whole into memory before it is read as a profile) by its first bytes
// (InputFile::kStreamStart of them, or all of a shorter one) where no format can start so:
// without a format given, they match none and hold a NUL byte. Every text format refuses a
// NUL byte, and the binary formats are told by their first bytes; so /dev/zero or
// /dev/urandom is refused there rather than read until memory runs out.
void checkStreamStart(std::span<const uint8_t> start, const ReadOptions& options);
// Whether reading a profile of `format` with `options` leaves what only a write of its own IR
// needs (.ppk, its own format) to be built on first use: options.deferIR, or an output format
// the registry's rules say needs none of it.
bool readDefersIR(const ReadOptions& options, FormatId format);
// The binaries a profile's samples are in, where its format lists them ahead of the samples
// (perf.data's build-id table: a path and a build id each), read without reading the profile,
// so that they can be opened meanwhile; none where the format lists none there or the bytes
// are not what it says. `format`: the format readProfile() will read `data` as.
std::vector<Mapping> binariesAhead(std::span<const uint8_t> data, const ReadOptions& options,
                                   FormatId& format);
// Several files that are parts of one profile (valgrind --separate-threads=yes: a Callgrind file
// per thread), read as one with a part per file; one file is readProfile. Status::unsupported
// for a format whose files are whole profiles each; an error in one file names it
// (`name(i)`) and gives its place in that file.
std::unique_ptr<Profile> readProfileParts(std::span<const std::span<const uint8_t>> files,
                                          const ReadOptions& options,
                                          const std::function<std::string(size_t)>& name);

// The files of a directory (every regular file in it), read as one profile by the format whose
// directories they make (Codec::readDirectory); Status::io where none does (not a profile).
std::unique_ptr<Profile> readProfileDirectory(const DirectoryFiles& dir,
                                              const ReadOptions& options);

// Serialises `profile` in `format`. Throws Status::unsupported where the IR lacks what the
// format needs (e.g. a gperftools profile written as Cachegrind).
std::string writeProfile(const Profile& profile, FormatId format, const WriteOptions& options);
// The .ppk row's writer (registry_ppk.cpp): the IR at zstd `level`, and where it is large the
// whole profile's function layer and summary (lib/model/stored.h).
void writePpk(const Profile& profile, int level, Sink& out);
// The same into `out`, a piece at a time where the format's writer streams (the text formats:
// Callgrind and Cachegrind flush about every 1 MiB); the others pass their output in one piece.
void writeProfile(const Profile& profile, FormatId format, const WriteOptions& options, Sink& out);

// Merges (lib/merge/): the format merges of profiles of `profile`'s format are kept in (a mix
// of formats is kept as Callgrind); the format's own merge, where it does one (null where
// not); a profile of `format` holding `model` (written as `format` and read back).
FormatId mergedFormat(const Profile& profile);
// The format a merge of several formats is kept in (Callgrind).
FormatId mixedFormat();
// The format NEW - BASE is kept in: the one their merges are kept in where it can hold
// negative costs (Cachegrind files: Cachegrind; pprof: pprof); else, where both models have
// stacks (`capabilities`: what both models have), the format that holds signed stacks
// (pprof), so that the difference keeps them; else mixedFormat().
FormatId differenceFormat(const Profile& base, const Profile& current, uint32_t capabilities);
// The header lines (key, value) a difference kept in `format` says of its two inputs, named
// `baseName` and `currentName` (Cachegrind: cg_diff's "Files compared:" and both commands);
// none where the format writes none, and the difference keeps the current profile's.
HeaderPairs differenceHeader(FormatId format, const Model& base, const std::string& baseName,
                             const Model& current, const std::string& currentName);
std::unique_ptr<FormatMerge> formatMerge(const Profile& profile);
// The own merge of profiles of `format` (null where it has none).
std::unique_ptr<FormatMerge> formatMerge(FormatId format);
std::unique_ptr<Profile> profileFromModel(const Model& model, FormatId format);
// Whether profileFromModel(model, format) reads the model's stacks (a merge kept in a format
// that holds none need not sum them).
bool keepsStacks(FormatId format);
// Whether a profile of `format` has its C++ functions named without their parameters when it is
// symbolized (SymbolizeOptions::namesWithoutParameters), as the format's own tools print them.
bool namesWithoutParameters(FormatId format);

}  // namespace profpack
