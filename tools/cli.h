// What the CLI's modules share: the run's output state, the argument parser, error reporting,
// reading inputs and formatting costs. The CLI uses only the public C API.
#pragma once

#include <profpack/profpack.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "json.h"

// `profpack archive` (archive.cpp), which parses its own arguments.
int cmdArchive(const std::vector<std::string>& args);

namespace cli {

// One run's output: with --json, documents on stdout, failures as {"error": ...} on stderr and
// the readers' warnings kept for the document's "warnings".
struct Invocation {
  bool json = false;
  std::vector<std::string> warnings;  // "FILE: text"
};

// A profile handle, freed with its scope.
struct Profile {
  profpack_profile* p = nullptr;
  Profile() = default;
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  ~Profile() { profpack_profile_free(p); }
};

// --- errors (output.cpp) ---------------------------------------------------------------------
// A failure that is not the library's (nothing found): exit status 1.
int failure(Invocation& s, const std::string& context, const std::string& message);
// The library's last error, in the context of `context` (a file, a command): exit status 1.
int failWith(Invocation& s, const char* context);
// A usage error: exit status 2.
int usageError(Invocation& s, const std::string& message);

// --- warnings and JSON (output.cpp) ---------------------------------------------------------
// Prints the profile's warnings on stderr; with --json keeps them for the document instead.
void printWarnings(Invocation& s, profpack_profile* p, const std::string& file);
void jsonWarnings(const Invocation& s, Json& j);
void printJson(const Json& j);
// The events of `p` in column order (empty if it has none or they cannot be listed).
std::vector<profpack_event> eventsOf(profpack_profile* p);

// Costs of one profile as text: signed where the profile's costs are (a difference). Whether
// they are is asked only when a value could be negative (2^63 and up as unsigned):
// profpack_profile_info counts the whole profile, which a query need not pay for.
class Costs {
 public:
  explicit Costs(profpack_profile* p, int isSigned = -1) : p_(p), signed_(isSigned) {}
  double value(uint64_t v) const;        // as a number
  std::string digits(uint64_t v) const;  // -1234
  std::string commas(uint64_t v) const;  // -1,234
  void jsonEvents(Json& j) const;        // "events": [{name, long_name, total}]

 private:
  bool negative(uint64_t v) const;
  profpack_profile* p_;
  mutable int signed_;  // -1: not asked yet
};

// --- arguments (args.cpp) -------------------------------------------------------------------
// One option: its spellings, its value (null for a flag), the commands that take it and its
// help line. The CLI's own options are a fixed table; the write parameters are the library's.
struct OptionSpec {
  std::string name;       // "--event"
  std::string alias;      // "-o", or ""
  std::string value;      // what its value is, for messages; "" for a flag
  std::string commands;   // the commands that take it, space-separated
  std::string help;       // one line
  std::string meta;       // its value in the synopsis ("FORMAT"); "" for a flag
  bool repeated = false;  // may be given several times
  bool required = false;  // the command needs it (shown without brackets)
};
const std::vector<OptionSpec>& optionSpecs();
bool takes(const OptionSpec& o, const std::string& command);

struct Args {
  std::map<std::string, std::string> options;                 // by long name; flags map to ""
  std::vector<std::pair<std::string, std::string>> repeated;  // every valued option, in order
  std::vector<std::string> positional;
  bool has(const char* name) const { return options.count(name) != 0; }
  std::string get(const char* name, const std::string& otherwise = "") const {
    auto it = options.find(name);
    return it == options.end() ? otherwise : it->second;
  }
};
// Parses the arguments of `command` into `out`; on a usage error returns its exit code (2).
int parseArgs(Invocation& s, const std::string& command, const std::vector<std::string>& argv,
              Args& out);
// A whole decimal number in [lo, hi], or -1.
long number(const std::string& text, long lo, long hi);

// --- inputs and outputs (io.cpp) ------------------------------------------------------------
// Reads `files` as one profile: one file, or the parts of one (a Callgrind file per thread).
profpack_status readInputs(const std::vector<std::string>& files,
                           const profpack_read_options* options, profpack_profile** out);
// The read options of a command that names addresses from their binaries as it reads
// (PROFPACK_READ_SYMBOLIZE), unless --no-symbolize: --binary-path's directories (each
// DIR[:DIR...], in order) are kept in `dirs`, which `ro` points into.
struct SymbolizeOnRead {
  std::vector<std::string> dirs;
  std::vector<const char*> ptrs;
  void apply(const Args& args, profpack_read_options& ro);
};
// Replaces `p` by its view of one thread (thread >= 0) named from `binary` (if not empty),
// of the samples the --tag selectors of `args` keep.
profpack_status view(Profile& p, const std::string& binary, long thread, const Args& args);
// Whether `args` asks for a view (--binary, --thread or --tag).
bool wantsView(const Args& args);
// The format to write OUT in: --to, else OUT's name, else `otherwise`; UNKNOWN after a usage
// error (a --to that names no format).
profpack_format outputFormat(Invocation& s, const Args& args, const std::string& out,
                             profpack_format otherwise);
// The write parameters given (--level, --xray-mode, ...: the library's table) into `wo`; a
// usage error's exit code (2) for a value the parameter does not take.
int writeOptions(Invocation& s, const Args& args, profpack_write_options& wo);
// Writes `p` as `format` to `out` with the write parameters of `args`.
int writeOutput(Invocation& s, const Args& args, profpack_profile* p, profpack_format format,
                const std::string& out);

// --- commands --------------------------------------------------------------------------------
using Command = int (*)(Invocation& s, const std::vector<std::string>& argv);
int cmdConvert(Invocation& s, const std::vector<std::string>& argv);
int cmdInfo(Invocation& s, const std::vector<std::string>& argv);
int cmdTop(Invocation& s, const std::vector<std::string>& argv);
int cmdAnnotate(Invocation& s, const std::vector<std::string>& argv);
int cmdCalls(Invocation& s, const std::vector<std::string>& argv);
int cmdMerge(Invocation& s, const std::vector<std::string>& argv);
int cmdDiff(Invocation& s, const std::vector<std::string>& argv);
int cmdSymbolize(Invocation& s, const std::vector<std::string>& argv);
int cmdEqual(Invocation& s, const std::vector<std::string>& argv);

// Tunes the heap for one command on one large input (heap.cpp).
void tuneHeap();

}  // namespace cli
