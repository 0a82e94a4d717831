#include "formats/registry.h"

#include <array>
#include <cstring>

#include "container/ppk.h"
#include "error.h"
#include "formats/cachegrind/cachegrind.h"
#include "formats/callgrind/callgrind.h"
#include "formats/callgrind/model.h"
#include "formats/calltree/calltree.h"
#include "formats/cpuprofile/cpuprofile.h"
#include "formats/dcpi/dcpi.h"
#include "formats/dcpi/model.h"
#include "formats/dcpi/params.h"
#include "formats/folded/folded.h"
#include "formats/folded/params.h"
#include "formats/gperftools/gperftools.h"
#include "formats/gperftools/model.h"
#include "formats/gperftools/params.h"
#include "formats/perf/perf.h"
#include "formats/pprof/pprof.h"
#include "formats/registry_codec.h"
#include "formats/trace_event/trace_event.h"
#include "formats/xray/model.h"
#include "formats/xray/params.h"
#include "formats/xray/xray.h"
#include "model/stored.h"

namespace profpack {

namespace {

void putString(Sink& out, std::string s) { out.write(std::move(s)); }

// The .ppk container's own parameter.
constexpr WriteParam kPpkWriteParams[] = {
    {.key = 1,  // PROFPACK_WRITE_PPK_LEVEL
     .format = FormatId::ppk,
     .cName = "PROFPACK_WRITE_PPK_LEVEL",
     .name = "level",
     .help = "zstd level of .ppk output (default 3)",
     .value = "a number from 1 to 22",
     .lowest = 1,
     .highest = 22,
     .defaultValue = 3,
     .range = "1-22"},
};

// In detection order: the binary formats' magic first, the text formats last.
constexpr Codec kCodecs[] = {
    {FormatId::ppk, "ppk", ir::Format::UNKNOWN, FormatId::unknown, isPpk,
     [](std::span<const uint8_t> d, const ReadOptions& o) { return decodePpk(d, o.maxPpkMessage); },
     [](const Profile& p, const WriteOptions& o, Sink& out) {
       writePpk(p, static_cast<int>(o.get(kPpkWriteParams[0])), out);
     },
     nullptr, nullptr, nullptr},
    {FormatId::gperftools, "gperftools", ir::Format::GPERFTOOLS, FormatId::gperftools, isGperftools,
     [](std::span<const uint8_t> d, const ReadOptions& o) { return readGperftools(d, o.deferIR); },
     [](const Profile& p, const WriteOptions& o, Sink& out) {
       putString(out, writeGperftools(p, gperftoolsWriteOptions(o)));
     },
     nullptr, stackModel, nullptr, "stack samples of a CPU profiler", FormatId::gperftools,
     gperftoolsMerge},
    {FormatId::xray, "xray", ir::Format::XRAY, FormatId::xray, isXray,
     [](std::span<const uint8_t> d, const ReadOptions& o) { return readXray(d, o.strict); },
     [](const Profile& p, const WriteOptions& o, Sink& out) {
       putString(out, writeXray(p, xrayWriteOptions(o)));
     },
     nullptr, xrayModel, xrayFunctionEntries, "timeline of function entries and exits"},
    {FormatId::perf,
     "perf",
     ir::Format::PERF,
     FormatId::perf,
     isPerfData,
     [](std::span<const uint8_t> d, const ReadOptions&) { return readPerfData(d); },
     nullptr,
     nullptr,
     perfModel,
     nullptr,
     "a Linux perf recording",
     FormatId::callgrind,
     nullptr,
     false,
     true,
     true,
     nullptr,
     nullptr,
     perfBinariesAhead,
     /*modelReadsPartialIR=*/true,
     /*writeModelReadsFrames=*/true,
     readPerfDirectory},
    {FormatId::dcpi, "dcpi", ir::Format::DCPI, FormatId::dcpi, isDcpi,
     [](std::span<const uint8_t> d, const ReadOptions&) { return readDcpi(d); },
     [](const Profile& p, const WriteOptions& o, Sink& out) {
       putString(out, writeDcpi(p, dcpiWriteImage(o)));
     },
     [](const Model& m, const ModelFor&, const WriteOptions& o, Sink& out) {
       putString(out, writeDcpi(m, dcpiWriteImage(o)));
     },
     imageModel, nullptr},
    // Before the text formats: a bare profile.proto is told from text by decoding its first
    // fields (text fails at once: '#', 'd', 'e', 'c', 'f', 'v' are no field of its wire type).
    {FormatId::pprof,
     "pprof",
     ir::Format::PPROF,
     FormatId::pprof,
     isPprof,
     readPprof,
     [](const Profile& p, const WriteOptions&, Sink& out) { putString(out, writePprofIR(p)); },
     [](const Model& m, const ModelFor&, const WriteOptions&, Sink& out) {
       putString(out, writePprof(m));
     },
     pprofModel,
     nullptr,
     nullptr,
     FormatId::pprof,
     pprofMerge,
     /*holdsSigned=*/true,
     /*writeModelReadsEdges=*/false,
     /*writeModelReadsStacks=*/true,
     nullptr,
     nullptr,
     nullptr,
     /*modelReadsPartialIR=*/false,
     /*writeModelReadsFrames=*/false},
    {FormatId::callgrind, "callgrind", ir::Format::CALLGRIND, FormatId::callgrind, isCallgrind,
     readCallgrind,
     [](const Profile& p, const WriteOptions&, Sink& out) { writeCallgrind(p, out); },
     [](const Model& m, const ModelFor& perThread, const WriteOptions&, Sink& out) {
       writeCallgrindModel(m, perThread, out);
     },
     costTableModel, nullptr, nullptr, FormatId::callgrind, nullptr, true, true,
     /*writeModelReadsStacks=*/false, readCallgrindParts},
    {FormatId::cachegrind, "cachegrind", ir::Format::CACHEGRIND, FormatId::callgrind, isCachegrind,
     readCachegrind,
     [](const Profile& p, const WriteOptions&, Sink& out) { writeCachegrind(p, out); },
     [](const Model& m, const ModelFor&, const WriteOptions&, Sink& out) {
       writeCachegrindModel(m, out);
     },
     costTableModel, nullptr, nullptr, FormatId::cachegrind, nullptr, true, true,
     /*writeModelReadsStacks=*/false, nullptr, cachegrindDifferenceHeader},
    // Before the JSON and collapsed-stack formats: a sample line followed by a tab-indented
    // frame line.
    {FormatId::perfScript, "perf-script", ir::Format::PERF_SCRIPT, FormatId::perfScript,
     isPerfScript, [](std::span<const uint8_t> d, const ReadOptions&) { return readPerfScript(d); },
     nullptr, nullptr, perfModel, nullptr, "a Linux perf recording"},
    // JSON: a V8 CPU profile has "nodes"; any other JSON object or array is read as a trace,
    // whose reader refuses what is neither.
    {FormatId::cpuprofile, "cpuprofile", ir::Format::CPUPROFILE, FormatId::cpuprofile, isCpuprofile,
     readCpuprofile, nullptr, nullptr, callTreeModel, nullptr},
    {FormatId::traceEvent, "trace-event", ir::Format::TRACE_EVENT, FormatId::traceEvent,
     isTraceEvent, readTraceEvents, nullptr,
     [](const Model& m, const ModelFor&, const WriteOptions&, Sink& out) {
       writeTraceEvents(m, out);
     },
     callTreeModel, nullptr},
    // Last: its detection takes any text of `stack count` lines. Written from the model (also
    // from its own IR); merges sum stacks into collapsed stacks.
    {FormatId::folded, "folded", ir::Format::FOLDED, FormatId::folded, isFolded, readFolded,
     nullptr,
     [](const Model& m, const ModelFor& perThread, const WriteOptions& o, Sink& out) {
       writeFolded(m, perThread, foldedEvent(m), out, foldedProcess(o));
     },
     callTreeModel, nullptr, nullptr, FormatId::folded, nullptr, false,
     /*writeModelReadsEdges=*/false},
};

// The C header's values and the IR's enumerants are fixed; FormatId names both.
static_assert(static_cast<int>(FormatId::unknown) == 0 && static_cast<int>(FormatId::ppk) == 1 &&
                  static_cast<int>(FormatId::callgrind) == 2 &&
                  static_cast<int>(FormatId::cachegrind) == 3 &&
                  static_cast<int>(FormatId::gperftools) == 4 &&
                  static_cast<int>(FormatId::xray) == 5 && static_cast<int>(FormatId::dcpi) == 6 &&
                  static_cast<int>(FormatId::folded) == 7 &&
                  static_cast<int>(FormatId::traceEvent) == 8 &&
                  static_cast<int>(FormatId::pprof) == 9 &&
                  static_cast<int>(FormatId::cpuprofile) == 10 &&
                  static_cast<int>(FormatId::perf) == 11 &&
                  static_cast<int>(FormatId::perfScript) == 12,
              "FormatId must keep profpack_format's values (include/profpack/profpack.h)");
constexpr bool irFormatsDistinct() {
  for (const Codec& a : kCodecs)
    for (const Codec& b : kCodecs)
      if (&a != &b && a.ir != ir::Format::UNKNOWN && a.ir == b.ir) return false;
  return true;
}
static_assert(irFormatsDistinct(), "each format read (but .ppk) has its own ir::Format");
static_assert(std::size(kCodecs) == 12, "every FormatId but unknown has one codec");

// Every format's write parameters, the .ppk level first.
constexpr std::span<const WriteParam> kWriteParamLists[] = {kPpkWriteParams, kXrayWriteParams,
                                                            kGperftoolsWriteParams,
                                                            kFoldedWriteParams, kDcpiWriteParams};

}  // namespace

std::span<const Codec> codecs() { return kCodecs; }

const Codec* codecFor(FormatId f) {
  for (const Codec& c : kCodecs)
    if (c.id == f) return &c;
  return nullptr;
}

namespace {

// By positions, not addresses: comparing addresses in different arrays is not a constant
// expression for every compiler setting (g++ -O0 with sanitizers refuses it).
constexpr bool writeParamsDistinct() {
  constexpr size_t lists = std::size(kWriteParamLists);
  for (size_t i = 0; i < lists; ++i)
    for (size_t j = 0; j < kWriteParamLists[i].size(); ++j)
      for (size_t k = 0; k < lists; ++k)
        for (size_t l = 0; l < kWriteParamLists[k].size(); ++l) {
          if (i == k && j == l) continue;
          const WriteParam& p = kWriteParamLists[i][j];
          const WriteParam& q = kWriteParamLists[k][l];
          if (p.key == q.key || std::string_view(p.name) == q.name) return false;
        }
  return true;
}
static_assert(writeParamsDistinct(), "each write parameter has its own key and name");

}  // namespace

const char* formatName(FormatId f) {
  const Codec* c = codecFor(f);
  return c ? c->name : "unknown";
}

const std::vector<const WriteParam*>& writeParams() {
  static const std::vector<const WriteParam*> all = [] {
    std::vector<const WriteParam*> v;
    for (std::span<const WriteParam> list : kWriteParamLists)
      for (const WriteParam& p : list) v.push_back(&p);
    return v;
  }();
  return all;
}

namespace {
// What a file's name says it holds: the endings each format's files are given, and the names
// its profiler writes (a prefix of the base name). In this order: the longer endings first.
struct FileName {
  FormatId format;
  const char* ending;  // ".pb.gz"; null: none
  const char* prefix;  // "callgrind.out"; null: none
};
constexpr FileName kFileNames[] = {
    {FormatId::ppk, ".ppk", nullptr},
    {FormatId::pprof, ".pb.gz", nullptr},
    {FormatId::pprof, ".pprof", nullptr},
    {FormatId::pprof, ".pb", nullptr},
    {FormatId::folded, ".folded", nullptr},
    {FormatId::folded, ".collapsed", nullptr},
    {FormatId::traceEvent, ".json", nullptr},
    {FormatId::cpuprofile, ".cpuprofile", nullptr},
    {FormatId::gperftools, ".prof", nullptr},
    {FormatId::xray, ".xray", "xray-log."},
    {FormatId::dcpi, ".dcpi", nullptr},
    {FormatId::perf, ".data", "perf.data"},
    {FormatId::perfScript, ".perf-script", nullptr},
    {FormatId::callgrind, ".callgrind", "callgrind.out"},
    {FormatId::cachegrind, ".cachegrind", "cachegrind.out"},
};
constexpr bool everyFormatNamed() {
  for (const Codec& c : kCodecs) {
    bool named = false;
    for (const FileName& n : kFileNames) named |= n.format == c.id;
    if (!named) return false;
  }
  return true;
}
static_assert(everyFormatNamed(), "every format has a file name it is known by");
}  // namespace

FormatId formatForFileName(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (const FileName& n : kFileNames) {
    if (n.ending) {
      const std::string_view e(n.ending);
      if (base.size() > e.size() && base.substr(base.size() - e.size()) == e) return n.format;
    }
    if (n.prefix && base.substr(0, std::string_view(n.prefix).size()) == n.prefix) return n.format;
  }
  return FormatId::unknown;
}

namespace {
// A short description of each format, for help texts, and whether its output holds lines.
struct About {
  FormatId format;
  const char* text;
  bool writesNoLines = false;  // written, it holds names and costs, no file or line
};
constexpr About kAbout[] = {
    {FormatId::ppk, "profpack's own container (zstd-compressed IR)"},
    {FormatId::callgrind, "Callgrind (valgrind --tool=callgrind, KCachegrind)"},
    {FormatId::cachegrind, "Cachegrind (valgrind --tool=cachegrind, cg_annotate)"},
    {FormatId::gperftools, "gperftools CPU profile"},
    {FormatId::xray, "LLVM XRay trace, FDR or basic mode"},
    {FormatId::dcpi, "DIGITAL Continuous Profiling Infrastructure profile"},
    {FormatId::folded, "collapsed stacks (flamegraph.pl, inferno, py-spy)", true},
    {FormatId::traceEvent, "Chrome Trace Event JSON (Perfetto, chrome://tracing)", true},
    {FormatId::pprof, "pprof profile.proto, gzip-compressed or bare"},
    {FormatId::cpuprofile, "V8 CPU profile (node --cpu-prof, DevTools)"},
    {FormatId::perf, "Linux perf.data (perf record), file or pipe mode"},
    {FormatId::perfScript, "perf script text (default fields and common -F variants)"},
};
constexpr bool everyFormatAbout() {
  for (const Codec& c : kCodecs) {
    bool found = false;
    for (const About& a : kAbout) found |= a.format == c.id;
    if (!found) return false;
  }
  return true;
}
static_assert(everyFormatAbout(), "every format has a description");
}  // namespace

bool formatFacts(FormatId f, FormatFacts& out) {
  const Codec* c = codecFor(f);
  if (!c) return false;
  // The file names of each format, joined once.
  static const auto names = [] {
    std::array<std::pair<std::string, std::string>, std::size(kCodecs) + 1> v;
    for (const FileName& n : kFileNames) {
      auto& [endings, prefixes] = v[static_cast<size_t>(n.format)];
      if (n.ending) endings += (endings.empty() ? "" : " ") + std::string(n.ending);
      if (n.prefix) {
        const std::string p = n.prefix;
        prefixes += (prefixes.empty() ? "" : " ") + p + (p.back() == '.' ? "*" : ".*");
      }
    }
    return v;
  }();
  out = {};
  out.readable = c->read != nullptr;
  out.writable = c->write != nullptr || c->writeModel != nullptr;
  out.endings = names[static_cast<size_t>(f)].first.c_str();
  out.fileNames = names[static_cast<size_t>(f)].second.c_str();
  for (const About& a : kAbout)
    if (a.format == f) out.about = a.text, out.writesLines = out.writable && !a.writesNoLines;
  return true;
}

FormatId formatFromName(std::string_view name) {
  for (const Codec& c : kCodecs)
    if (name == c.name) return c.id;
  return FormatId::unknown;
}

const Codec& codecOf(const Profile& profile) {
  const ir::Format f = profile.format();
  for (const Codec& c : kCodecs)
    if (c.model && c.ir == f) return c;
  throw Error(Status::malformed, "ppk",
              "the IR names no format it was read from (format " +
                  std::to_string(static_cast<unsigned>(f)) + ")");
}

bool namesWithoutParameters(FormatId format) {
  // perf report and perf script print a C++ function without its parameters or return type
  // ("walk_tree_1", not "walk_tree_1(tree_node**, ...)"): a recording's `top`, folded stacks
  // and the rest name it as perf does, and its perf script text names it the same.
  return format == FormatId::perf;
}

FormatId formatOf(const Profile& profile) {
  const ir::Format f = profile.format();
  for (const Codec& c : kCodecs)
    if (c.model && c.ir == f) return c.id;
  return FormatId::unknown;
}

std::unique_ptr<Model> buildModel(const Profile& profile, const ModelOptions& given) {
  const Codec& c = codecOf(profile);
  if (!given.binary.empty() && !c.functionEntries) {
    std::string which;
    for (const Codec& k : kCodecs)
      if (k.functionEntries) which += std::string(which.empty() ? "" : ", ") + k.name;
    throw Error(Status::unsupported, "",
                "only these formats take function names from a binary: " + which);
  }
  // The first model of a profile's names shares what naming's model of its addresses decoded.
  ModelOptions options = given;
  if (!options.cache && options.symbols) options.cache = profile.takeModelCache();
  auto own = [&c, &profile, options] {  // names from a symbol section added where there is one
    const bool wrapped = options.symbols && profile.sourceWrap();
    ModelOptions inner = options;
    inner.stackFrames |= wrapped;  // naming reads the inner source's frames
    auto s = c.model(profile, inner);
    return wrapped
               ? profile.sourceWrap()(std::move(s), profile, options.cache.get())
               : std::move(s);
  };
  std::unique_ptr<ModelSource> source = sourceWithStoredModel(profile, options, own);
  if (!options.tags.empty() && !(source->capabilities() & kCapLabels))
    throw Error(Status::unsupported, c.name,
                std::string(c.name) + " samples carry no labels to select by tag");
  auto model = std::make_unique<Model>(std::move(source), c.name);
  if (options.thread >= 0 && static_cast<size_t>(options.thread) >= model->threads().size())
    throw Error(Status::invalidArgument, "",
                "thread index " + std::to_string(options.thread) +
                    " out of range: the profile has " + std::to_string(model->threads().size()) +
                    " threads");
  return model;
}

bool modelReadsPartialIR(const Profile& profile) {
  return formatOf(profile) != FormatId::unknown && codecOf(profile).modelReadsPartialIR;
}

uint32_t modelCapabilities(const Profile& profile) {
  if (const uint32_t stored = storedCapabilities(profile)) return stored;
  ModelOptions mo;
  mo.symbols = false;
  return codecOf(profile).model(profile, mo)->capabilities();
}

FormatId detectFormat(std::span<const uint8_t> data) {
  for (const Codec& c : kCodecs)
    if (c.detect && c.detect(data)) return c.id;
  return FormatId::unknown;
}

namespace {
// Whether `out` writes a profile read from `source` from its IR as read (.ppk, and the
// source's own family), rather than from its model.
bool writesIR(const Codec& out, const Codec* source) {
  return out.family == FormatId::unknown || (source && source->family == out.family);
}

// `options` for reading with `c`: where the caller names the output format, the IR that only
// a write of that IR needs is left to be built on first use.
ReadOptions readOptionsFor(const ReadOptions& options, const Codec& c) {
  ReadOptions o = options;
  if (const Codec* out = codecFor(options.outputFormat)) o.deferIR |= !writesIR(*out, &c);
  return o;
}
}  // namespace

bool readDefersIR(const ReadOptions& options, FormatId format) {
  const Codec* c = codecFor(format);
  return c ? readOptionsFor(options, *c).deferIR : options.deferIR;
}

std::vector<Mapping> binariesAhead(std::span<const uint8_t> data, const ReadOptions& options,
                                   FormatId& format) {
  format = options.format == FormatId::unknown ? detectFormat(data) : options.format;
  const Codec* c = codecFor(format);
  return c && c->binariesAhead ? c->binariesAhead(data) : std::vector<Mapping>{};
}

void checkStreamStart(std::span<const uint8_t> start, const ReadOptions& options) {
  // readProfile() of bytes no format detects throws its "unrecognised input".
  if (options.format == FormatId::unknown && !start.empty() &&
      std::memchr(start.data(), 0, start.size()) && detectFormat(start) == FormatId::unknown)
    readProfile(start, options);
}

std::unique_ptr<Profile> readProfile(std::span<const uint8_t> data, const ReadOptions& options) {
  // An empty input may come with a null pointer (an empty std::vector, a C caller's NULL):
  // give the readers a valid one, so no memchr/memcpy ever sees null.
  static const uint8_t kNothing[1] = {0};
  if (data.empty()) data = std::span<const uint8_t>(kNothing, 0);
  const FormatId f = options.format == FormatId::unknown ? detectFormat(data) : options.format;
  if (const Codec* c = codecFor(f)) {
    if (!c->read)
      throw Error(Status::unsupported, c->name,
                  std::string(c->name) + " is written by profpack, not read");
    return c->read(data, readOptionsFor(options, *c));
  }
  if (data.empty()) throw Error(Status::malformed, "", "empty input: no profile to read", 0);
  throw Error(Status::malformed, "",
              "unrecognised input: not a .ppk, Callgrind, Cachegrind, gperftools, XRay, DCPI or "
              "pprof profile, perf.data, perf script text, V8 .cpuprofile, Chrome trace or "
              "collapsed stacks",
              0);
}

std::unique_ptr<Profile> readProfileParts(std::span<const std::span<const uint8_t>> files,
                                          const ReadOptions& options,
                                          const std::function<std::string(size_t)>& name) {
  if (files.size() == 1) return readProfile(files[0], options);
  if (files.empty()) throw Error(Status::invalidArgument, "", "no files to read");
  const Codec* first = nullptr;
  for (size_t i = 0; i < files.size(); ++i) {
    const FormatId f =
        options.format == FormatId::unknown ? detectFormat(files[i]) : options.format;
    const Codec* c = codecFor(f);
    if (!c || !c->readParts) {
      std::string which;
      for (const Codec& k : kCodecs)
        if (k.readParts) which += std::string(which.empty() ? "" : ", ") + k.name;
      throw Error(Status::unsupported, c ? c->name : "",
                  name(i) + " is " + (c ? std::string("a ") + c->name + " profile" : "no profile") +
                      ": only " + which +
                      " files join as parts of one profile (a file per thread); merge sums "
                      "profiles");
    }
    if (first && c != first)
      throw Error(Status::invalidArgument, c->name,
                  name(i) + " is " + c->name + ", " + name(0) + " " + first->name +
                      ": the parts of one profile are of one format");
    first = c;
  }
  // Each file alone first, with the format's own reader, so that a defect is reported at its
  // place in its own file; then the parts as one.
  const ReadOptions o = readOptionsFor(options, *first);
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      first->read(files[i], o);
    } catch (const Error& e) {
      throw e.inFile(name(i));
    }
  }
  return first->readParts(files, o);
}

std::unique_ptr<Profile> readProfileDirectory(const DirectoryFiles& dir,
                                              const ReadOptions& options) {
  std::string which;
  for (const Codec& c : kCodecs) {
    if (!c.readDirectory) continue;
    if (options.format != FormatId::unknown && options.format != c.id) continue;
    if (auto p = c.readDirectory(dir, readOptionsFor(options, c))) return p;
    which += std::string(which.empty() ? "" : ", ") + c.name;
  }
  // As a directory given as a file has always been: an input error, not a format's.
  throw Error(Status::io, "",
              "a directory, not a profile (the directories read as one are " +
                  (which.empty() ? std::string("none") : which) +
                  "'s: perf record --threads writes one)");
}

void writeProfile(const Profile& profile, FormatId format, const WriteOptions& options, Sink& out) {
  const Codec* c = codecFor(format);
  if (!c) throw Error(Status::invalidArgument, "", "no output format given");
  // The source's codec; null for an IR that names no format (a .ppk can hold one, and is
  // still written back as .ppk).
  const Codec* source = codecFor(formatOf(profile));
  const bool sameFamily = writesIR(*c, source);
  if (!c->write && !c->writeModel)
    throw Error(Status::unsupported, c->name,
                std::string(c->name) + " is read by profpack, not written");
  if (c->write && (sameFamily || !c->writeModel)) {
    // A difference is kept in a format of its own (pprof, Callgrind) whatever its inputs were:
    // name what it is, not the format it is kept in. (Only on the way to an error: the model
    // says whether costs are signed where the IR has no flag for it, as pprof's has not.)
    if (!sameFamily && c->needs && source &&
        (profile.signedCosts() || buildModel(profile, {})->has(kCapSigned))) {
      std::string to;
      for (const Codec& k : kCodecs)
        if (k.holdsSigned && (k.write || k.writeModel)) to += std::string(k.name) + ", ";
      throw Error(Status::unsupported, c->name,
                  std::string("a difference of profiles holds negative costs, which ") + c->name +
                      " cannot: write it as " + to + "or ppk");
    }
    if (!sameFamily && c->needs && source)
      throw Error(Status::unsupported, c->name,
                  std::string(source->name) + " holds no " + c->needs +
                      ", so it cannot be written as " + c->name);
    return c->write(profile, options, out);
  }
  // The whole profile's model and each thread's share what they compute from the whole
  // profile: a model per thread costs that thread's share of it, not the whole profile again.
  std::shared_ptr<ModelCache> cache = profile.takeModelCache();
  if (!cache) cache = std::make_shared<ModelCache>();
  const ModelFor perThread = [&](long thread) {
    ModelOptions o;
    o.thread = thread;
    o.cache = cache;
    return buildModel(profile, o);
  };
  ModelOptions o;
  o.callEdges = c->writeModelReadsEdges;
  o.stackFrames = c->writeModelReadsFrames;
  o.cache = cache;
  c->writeModel(*buildModel(profile, o), perThread, options, out);
}

std::string writeProfile(const Profile& profile, FormatId format, const WriteOptions& options) {
  StringSink out;
  writeProfile(profile, format, options, out);
  return std::move(out.out);
}

std::vector<uint64_t> functionEntries(const Profile& profile, const std::string& binary) {
  const Codec& c = codecOf(profile);
  if (!c.functionEntries)
    throw Error(Status::unsupported, c.name,
                std::string(c.name) + " functions are not ids that a binary names");
  return c.functionEntries(binary);
}

}  // namespace profpack
