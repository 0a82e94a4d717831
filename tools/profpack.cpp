// profpack: the command-line front end. It uses only the public C API.

#include <malloc.h>
#include <profpack/profpack.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"

namespace {

const char* kUsage =
    "usage: profpack <command> [options]\n"
    "\n"
    "commands:\n"
    "  convert IN [PART...] -o OUT [--to FORMAT] [--level N] [--xray-mode basic|fdr]\n"
    "          [--xray-version N] [--image NAME] [--slot-bytes 4|8] [--byte-order little|big]\n"
    "      Convert a profile. The input format is detected from the content. FORMAT is one of\n"
    "      ppk, callgrind, cachegrind, gperftools, xray, dcpi, and (written only) folded\n"
    "      (collapsed stacks), trace-event (Chrome Trace Event JSON) and pprof (gzipped\n"
    "      profile.proto). Without --to, OUT's name decides: .ppk, .pb.gz/.pprof/.pb (pprof),\n"
    "      .folded/.collapsed, .json (trace-event), .prof (gperftools), .xray, .dcpi,\n"
    "      .callgrind or callgrind.out.*, .cachegrind or cachegrind.out.*; any other name is\n"
    "      written as ppk. A format that cannot hold what the input has is refused with\n"
    "      the reason (docs/formats.md has the whole matrix). --level sets the zstd level\n"
    "      (1-22, default 3) of .ppk output. --xray-mode/--xray-version choose the XRay\n"
    "      output (default: the input's). --image picks the DCPI image (path or index) when a\n"
    "      profile has several. --slot-bytes/--byte-order choose the gperftools output\n"
    "      (default: as read). '-' means standard input / output.\n"
    "  info FILE [PART...] [--binary BIN] [--json]\n"
    "      Print format and version, parts, events with totals, and counts of functions,\n"
    "      files and objects.\n"
    "  top FILE [PART...] [--event E] [-n N] [--inclusive] [--binary BIN] [--thread N]\n"
    "      [--tsv|--json]\n"
    "      The N (default 20) most costly functions by self (or inclusive) cost of event E\n"
    "      (default: the first event). --tsv prints tab-separated columns for tools: self,\n"
    "      inclusive, recursive (1 if it calls itself), file, function, object.\n"
    "  annotate FILE [PART...] --source PATH [--event E] [--thread N] [--json]\n"
    "      Per-line self cost of one source file; with the source text when PATH is readable.\n"
    "  calls FILE [PART...] FUNCTION [--event E] [--binary BIN] [--thread N] [--json]\n"
    "      Callers and callees of every function named FUNCTION, with call counts and\n"
    "      inclusive costs.\n"
    "  merge A B [C ...] -o OUT [--to FORMAT] [--event FROM=TO]...\n"
    "      Sum profiles (cg_merge, pprof -proto A B): per function, line, call arc and stack.\n"
    "      The inputs need the same events; --event renames one in every input first.\n"
    "      FORMAT, or OUT's name, as for convert; a name that says no format gets the\n"
    "      inputs' own: Cachegrind inputs merge into Cachegrind, gperftools into gperftools,\n"
    "      others into Callgrind.\n"
    "  diff BASE NEW -o OUT [--to FORMAT] [--event FROM=TO]...\n"
    "       [--mod-filename s/RE/REPL/[g]]... [--mod-funcname s/RE/REPL/[g]]...\n"
    "      NEW - BASE (cg_diff): signed costs per function, line and call arc. The rewrites\n"
    "      (repeatable, as cg_diff's) line up names from two build directories. FORMAT or\n"
    "      OUT's name as for merge: Cachegrind inputs give Cachegrind, others Callgrind.\n"
    "  symbolize IN -o OUT.ppk [--binary-path DIR]... [--binary BIN]\n"
    "      Name the addresses of a gperftools or DCPI profile from the ELF binaries its\n"
    "      mappings name (or DIR/<base name>, then the PROFPACK_BINARY_PATH directories):\n"
    "      functions, files, lines and inline frames, kept in the .ppk for every later query.\n"
    "      An XRay trace takes --binary, the instrumented executable: names, files, lines.\n"
    "  equal A B\n"
    "      Exit 0 if A and B hold the same IR (e.g. an original and its round trip through\n"
    "      .ppk), 1 if not.\n"
    "  --binary BIN (info, top, annotate, calls): the binary that produced the profile, to\n"
    "      name functions (XRay: the instrumented executable).\n"
    "  --thread N (top, annotate, calls): only thread N of the list `info` prints (XRay\n"
    "      threads; Callgrind parts with a thread: line).\n"
    "  --json (info, top, annotate, calls, merge, diff, symbolize): print one JSON document\n"
    "      for programs instead of text, and failures as a JSON object on stderr. The shapes\n"
    "      and exit codes are in docs/cli.md.\n"
    "  PART (info, top, annotate, calls, convert): more files of the same profile, read as\n"
    "      one: valgrind's --separate-threads=yes writes a Callgrind file per thread\n"
    "      (callgrind.out.PID-01, -02, ...), each a thread of the profile, as in KCachegrind.\n"
    "  --version, --help\n"
    "\n"
    "exit status: 0 success, 1 failure (unreadable or malformed input, nothing found, `equal`\n"
    "of different profiles), 2 usage error.\n";

// --json: documents on stdout, failures as {"error": ...} on stderr, warnings in the document.
bool gJson = false;
std::vector<std::string> gWarnings;  // "FILE: text", for the document's "warnings"

void printError(const char* status, int code, const std::string& message, const char* format,
                uint64_t offset, uint64_t line, const std::string& context) {
  cli::Json j;
  j.object().key("error").object();
  j.key("status").str(status);
  j.key("code");  // the C API's profpack_status; null for usage errors and "not found"
  code >= 0 ? j.integer(static_cast<uint64_t>(code)) : j.null();
  j.key("message").str(message);
  j.key("context").str(context);
  j.key("format").str(format);
  j.key("offset");
  offset == PROFPACK_UNKNOWN_POSITION ? j.null() : j.integer(offset);
  j.key("line");
  line == PROFPACK_UNKNOWN_POSITION ? j.null() : j.integer(line);
  j.end().key("warnings").array();
  for (const std::string& w : gWarnings) j.str(w);
  j.end().end();
  std::fprintf(stderr, "%s\n", j.text().c_str());
}

// A failure that is not the library's (nothing found): exit status 1.
int failure(const std::string& context, const std::string& message) {
  if (gJson) {
    printError("not found", -1, message, "", PROFPACK_UNKNOWN_POSITION, PROFPACK_UNKNOWN_POSITION,
               context);
  } else {
    std::fprintf(stderr, "profpack: %s: %s\n", context.c_str(), message.c_str());
  }
  return 1;
}

int failWith(const char* context) {
  const profpack_error* e = profpack_last_error();
  if (gJson) {
    printError(profpack_status_name(e->code), e->code, e->message, e->format, e->offset, e->line,
               context);
    return 1;
  }
  // A read error names its file already.
  const std::string_view m(e->message), c(context);
  const bool named = m.size() > c.size() && m.substr(0, c.size()) == c && m[c.size()] == ':';
  std::fprintf(stderr, "profpack: %s%s%s\n", named ? "" : context, *context && !named ? ": " : "",
               e->message);
  return 1;
}

int usageError(const std::string& msg) {
  if (gJson) {
    printError("usage error", -2, msg, "", PROFPACK_UNKNOWN_POSITION, PROFPACK_UNKNOWN_POSITION,
               "");
    return 2;
  }
  std::fprintf(stderr, "profpack: %s (see profpack --help)\n", msg.c_str());
  return 2;
}

struct Profile {
  profpack_profile* p = nullptr;
  ~Profile() { profpack_profile_free(p); }
};

// Replaces `p` by its view of one thread (thread >= 0) named from `binary` (if not empty).
profpack_status view(Profile& p, const std::string& binary, long thread) {
  profpack_view_options o;
  profpack_view_options_init(&o);
  if (!binary.empty()) o.binary = binary.c_str();
  if (thread >= 0) o.thread = static_cast<size_t>(thread);
  profpack_profile* v = nullptr;
  const profpack_status s = profpack_profile_view(p.p, &o, &v);
  if (s == PROFPACK_OK) {
    profpack_profile_free(p.p);
    p.p = v;
  }
  return s;
}

// Every option of every command: one table, one parser.
struct OptionSpec {
  const char* name;
  const char* alias;     // a short spelling, or null
  const char* value;     // what its value is, for error messages; null for a flag
  const char* commands;  // the commands that take it, space-separated
};
constexpr OptionSpec kOptions[] = {
    {"--output", "-o", "a file name", "convert merge diff symbolize"},
    {"--to", nullptr, "a format name", "convert merge diff symbolize"},
    {"--binary-path", nullptr, "a directory", "symbolize"},
    {"--mod-filename", nullptr, "an expression s/REGEX/REPLACEMENT/", "diff"},
    {"--mod-funcname", nullptr, "an expression s/REGEX/REPLACEMENT/", "diff"},
    {"--level", nullptr, "a number from 1 to 22", "convert"},
    {"--xray-mode", nullptr, "basic or fdr", "convert"},
    {"--xray-version", nullptr, "1-5 (FDR) or 1-3 (basic)", "convert"},
    {"--image", nullptr, "a path or an index", "convert"},
    {"--slot-bytes", nullptr, "4 or 8", "convert"},
    {"--byte-order", nullptr, "little or big", "convert"},
    {"--binary", nullptr, "a binary's path", "info top annotate calls symbolize"},
    {"--thread", nullptr, "a thread index (see profpack info)", "top annotate calls"},
    {"--event", nullptr, "an event name", "top annotate calls"},
    {"--event", nullptr, "FROM=TO (an event rename)", "merge diff"},
    {"--source", nullptr, "a source file's path", "annotate"},
    {"-n", nullptr, "a positive number", "top"},
    {"--inclusive", nullptr, nullptr, "top"},
    {"--tsv", nullptr, nullptr, "top"},
    {"--json", nullptr, nullptr, "info top annotate calls merge diff symbolize"},
};

bool takes(const OptionSpec& o, const std::string& cmd) {
  std::string_view list = o.commands;
  for (size_t pos = 0; pos <= list.size();) {
    size_t end = list.find(' ', pos);
    if (end == list.npos) end = list.size();
    if (list.substr(pos, end - pos) == cmd) return true;
    pos = end + 1;
  }
  return false;
}

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

// Parses the arguments of `cmd` into `out`; on a usage error returns its exit code (2).
int parseArgs(const std::string& cmd, const std::vector<std::string>& argv, Args& out) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : kOptions)
      if ((a == o.name || (o.alias && a == o.alias)) && (!spec || takes(o, cmd))) spec = &o;
    if (!spec || !takes(*spec, cmd)) return usageError("unknown option '" + a + "' for " + cmd);
    if (!spec->value) {
      out.options[spec->name] = "";
    } else if (i + 1 < argv.size()) {
      out.options[spec->name] = argv[++i];
      out.repeated.emplace_back(spec->name, argv[i]);
    } else {
      return usageError(a + " needs " + spec->value);
    }
  }
  return 0;
}

// A whole decimal number in [lo, hi], or -1.
long number(const std::string& s, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || errno || v < lo || v > hi) return -1;
  return v;
}

// Prints the reader's warnings (a truncated input, for one) on stderr; with --json, keeps
// them for the document instead.
std::vector<const char*> warningsOf(profpack_profile* p) {
  size_t n = 0;
  if (profpack_profile_warnings(p, nullptr, 0, &n) != PROFPACK_OK) return {};
  std::vector<const char*> w(n);
  if (profpack_profile_warnings(p, w.data(), w.size(), &n) != PROFPACK_OK) return {};
  return w;
}

void printWarnings(profpack_profile* p, const std::string& file) {
  for (const char* w : warningsOf(p)) {
    if (gJson)
      gWarnings.push_back(file + ": " + w);
    else
      std::fprintf(stderr, "profpack: %s: warning: %s\n", file.c_str(), w);
  }
}

void jsonWarnings(cli::Json& j) {
  j.key("warnings").array();
  for (const std::string& w : gWarnings) j.str(w);
  j.end();
}

void printJson(const cli::Json& j) { std::printf("%s\n", j.text().c_str()); }

// The format of the file at `path` from its first bytes; unknown for standard input or a file
// that cannot be opened (reading it reports why).
profpack_format formatOfFile(const std::string& path) {
  if (path == "-") return PROFPACK_FORMAT_UNKNOWN;
  std::ifstream f(path, std::ios::binary);
  char head[4096];
  f.read(head, sizeof head);
  return profpack_detect_format(head, static_cast<size_t>(f.gcount()));
}

// Reads `files` as one profile: one file, or the parts of one (a Callgrind file per thread).
profpack_status readInputs(const std::vector<std::string>& files,
                           const profpack_read_options* options, profpack_profile** out) {
  if (files.size() == 1) return profpack_read_file(files[0].c_str(), options, out);
  std::vector<const char*> paths;
  for (const std::string& f : files) paths.push_back(f.c_str());
  return profpack_read_files(paths.data(), paths.size(), options, out);
}

// The format to write OUT in: --to where given; else the format OUT's name says (".pb.gz",
// ".ppk", "callgrind.out.1", ...: profpack_format_for_path); else `otherwise`. A --to that the
// name contradicts is written as asked, with a warning. PROFPACK_FORMAT_UNKNOWN (after a usage
// error) for a --to that names no format.
profpack_format outputFormat(const Args& args, const std::string& out, profpack_format otherwise) {
  const profpack_format named = profpack_format_for_path(out.c_str());
  if (!args.has("--to")) return named != PROFPACK_FORMAT_UNKNOWN ? named : otherwise;
  const std::string to = args.get("--to");
  const profpack_format fmt = profpack_format_from_name(to.c_str());
  if (fmt == PROFPACK_FORMAT_UNKNOWN) {
    usageError("unknown format '" + to + "'");
    return fmt;
  }
  if (named != PROFPACK_FORMAT_UNKNOWN && named != fmt)
    std::fprintf(stderr,
                 "profpack: %s: warning: written as %s, as --to asks, under a name that says %s\n",
                 out.c_str(), profpack_format_name(fmt), profpack_format_name(named));
  return fmt;
}

int cmdConvert(const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs("convert", argv, args)) return rc;
  if (args.positional.empty()) return usageError("convert needs an input file");
  const std::string in = args.positional[0], out = args.get("--output"),
                    image = args.get("--image");
  if (out.empty()) return usageError("convert needs -o OUT");
  int level = 0, xrayMode = -1, xrayVersion = 0, slotBytes = 0, byteOrder = 0;
  if (args.has("--level") && (level = static_cast<int>(number(args.get("--level"), 1, 22))) < 0)
    return usageError("--level must be a number from 1 to 22");
  if (args.has("--xray-mode")) {
    const std::string v = args.get("--xray-mode");
    if (v != "basic" && v != "fdr") return usageError("--xray-mode is basic or fdr");
    xrayMode = v == "fdr" ? 1 : 0;
  }
  if (args.has("--xray-version") &&
      (xrayVersion = static_cast<int>(number(args.get("--xray-version"), 1, 5))) < 0)
    return usageError("--xray-version is 1-5 (FDR) or 1-3 (basic)");
  if (args.has("--slot-bytes")) {
    const std::string v = args.get("--slot-bytes");
    if (v != "4" && v != "8") return usageError("--slot-bytes is 4 or 8");
    slotBytes = v[0] - '0';
  }
  if (args.has("--byte-order")) {
    const std::string v = args.get("--byte-order");
    if (v != "little" && v != "big") return usageError("--byte-order is little or big");
    byteOrder = v == "little" ? 1 : 2;
  }
  const profpack_format fmt = outputFormat(args, out, PROFPACK_FORMAT_PPK);
  if (fmt == PROFPACK_FORMAT_UNKNOWN) return 2;
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  // Only a .ppk and a rewrite in the input's own format need the input's IR.
  if (fmt != PROFPACK_FORMAT_PPK && fmt != formatOfFile(in)) ro.flags |= PROFPACK_READ_DEFER_IR;
  Profile p;
  if (readInputs(args.positional, &ro, &p.p) != PROFPACK_OK) return failWith(in.c_str());
  printWarnings(p.p, in);
  profpack_write_options wo;
  profpack_write_options_init(&wo);
  // Each value was checked above; the library checks it again against its bounds.
  if ((level != 0 && profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, level)) ||
      profpack_write_options_set(&wo, PROFPACK_WRITE_XRAY_MODE, xrayMode) ||
      profpack_write_options_set(&wo, PROFPACK_WRITE_XRAY_VERSION, xrayVersion) ||
      profpack_write_options_set_string(&wo, PROFPACK_WRITE_DCPI_IMAGE,
                                        image.empty() ? nullptr : image.c_str()) ||
      profpack_write_options_set(&wo, PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES, slotBytes) ||
      profpack_write_options_set(&wo, PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER, byteOrder))
    return failWith("convert");
  if (profpack_write_file(p.p, fmt, out.c_str(), &wo) != PROFPACK_OK) return failWith(out.c_str());
  return 0;
}

// The open profile, and whether its costs are signed (a difference of profiles). That is
// asked only when a value could be negative (2^63 and up as unsigned): profpack_profile_info
// computes whole-profile counts, which a query need not pay for.
profpack_profile* gProfile = nullptr;
int gSigned = -1;  // -1: not asked yet

bool negative(uint64_t v) {
  if (int64_t(v) >= 0 || !gProfile) return false;
  if (gSigned < 0) {
    profpack_info info;
    profpack_info_init(&info);
    gSigned = profpack_profile_info(gProfile, &info) == PROFPACK_OK && info.signed_costs;
  }
  return gSigned == 1;
}

// A cost as a number: signed where the profile's costs are.
double value(uint64_t v) { return negative(v) ? double(int64_t(v)) : double(v); }

std::string digits(uint64_t v) {
  return negative(v) ? "-" + std::to_string(~v + 1) : std::to_string(v);
}

std::string grouped(uint64_t v) {  // 1,234,567
  std::string d = std::to_string(v), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

std::string commas(uint64_t v) { return negative(v) ? "-" + grouped(~v + 1) : grouped(v); }

// Events, in column order (empty if the profile has none or they cannot be listed).
std::vector<profpack_event> eventsOf(profpack_profile* p) {
  size_t n = 0;
  if (profpack_profile_events(p, nullptr, 0, &n) != PROFPACK_OK) return {};
  std::vector<profpack_event> ev(n);
  if (profpack_profile_events(p, ev.data(), ev.size(), &n) != PROFPACK_OK) return {};
  ev.resize(std::min(n, ev.size()));
  return ev;
}

void jsonEvents(cli::Json& j, profpack_profile* p) {
  j.key("events").array();
  for (const profpack_event& e : eventsOf(p)) {
    j.object().key("name").str(e.name).key("long_name").str(e.long_name);
    j.key("total").integer(digits(e.total)).end();
  }
  j.end();
}

int jsonInfo(profpack_profile* p, const profpack_info& info, const std::string& file) {
  gProfile = p;
  gSigned = info.signed_costs;
  cli::Json j;
  j.object();
  j.key("file").str(file);
  j.key("format").str(profpack_format_name(info.format));
  j.key("format_version").str(info.format_version);
  j.key("ir_bytes").integer(info.ir_bytes);
  j.key("parts").integer(info.parts);
  j.key("records").integer(info.records);
  j.key("functions").integer(info.functions);
  j.key("files").integer(info.files);
  j.key("objects").integer(info.objects);
  j.key("signed_costs").boolean(info.signed_costs != 0);
  jsonEvents(j, p);
  j.key("threads").array();
  size_t nt = 0;
  if (profpack_profile_threads(p, nullptr, 0, &nt) == PROFPACK_OK && nt > 0) {
    std::vector<profpack_thread> threads(nt);
    profpack_profile_threads(p, threads.data(), nt, &nt);
    for (size_t i = 0; i < threads.size() && i < nt; ++i)
      j.object()
          .key("index")
          .integer(i)
          .key("pid")
          .integer(threads[i].pid)
          .key("thread_id")
          .integer(threads[i].thread_id)
          .end();
  }
  j.end();
  printWarnings(p, file);
  jsonWarnings(j);
  printJson(j.end());
  return 0;
}

int cmdInfo(const std::vector<std::string>& argv) {
  Args parsed;
  if (int rc = parseArgs("info", argv, parsed)) return rc;
  const std::vector<std::string>& args = parsed.positional;
  const std::string binary = parsed.get("--binary");
  if (args.empty()) return usageError("info needs a profile file");
  Profile p;
  if (readInputs(args, nullptr, &p.p) != PROFPACK_OK) return failWith(args[0].c_str());
  if (!binary.empty() && view(p, binary, -1) != PROFPACK_OK) return failWith(binary.c_str());
  profpack_info info;
  profpack_info_init(&info);
  if (profpack_profile_info(p.p, &info) != PROFPACK_OK) return failWith(args[0].c_str());
  if (gJson) return jsonInfo(p.p, info, args[0]);
  std::printf("format: %s", profpack_format_name(info.format));
  if (*info.format_version) std::printf(" (version %s)", info.format_version);
  std::printf("\nIR size: %llu bytes\n", (unsigned long long)info.ir_bytes);
  std::printf("parts: %llu\nrecords: %llu\nfunctions: %llu\nfiles: %llu\nobjects: %llu\n",
              (unsigned long long)info.parts, (unsigned long long)info.records,
              (unsigned long long)info.functions, (unsigned long long)info.files,
              (unsigned long long)info.objects);
  size_t n = 0;
  if (profpack_profile_events(p.p, nullptr, 0, &n) != PROFPACK_OK) return failWith(args[0].c_str());
  std::vector<profpack_event> ev(n);
  if (profpack_profile_events(p.p, ev.data(), ev.size(), &n) != PROFPACK_OK)
    return failWith(args[0].c_str());
  std::printf("events: %zu\n", n);
  for (auto& e : ev) {
    std::printf(info.signed_costs ? "  %-10s %20lld" : "  %-10s %20llu", e.name,
                (unsigned long long)e.total);
    if (*e.long_name) std::printf("  %s", e.long_name);
    std::printf("\n");
  }
  size_t nt = 0;
  if (profpack_profile_threads(p.p, nullptr, 0, &nt) == PROFPACK_OK && nt > 0) {
    std::vector<profpack_thread> threads(nt);
    profpack_profile_threads(p.p, threads.data(), nt, &nt);
    std::printf("threads: %zu\n", nt);
    for (size_t i = 0; i < nt; ++i)
      std::printf("  %zu: pid %u, thread %u\n", i, threads[i].pid, threads[i].thread_id);
  }
  printWarnings(p.p, args[0]);  // on stderr, as every other command's
  return 0;
}

// The query commands' arguments: FILE [FUNCTION] and their options.
struct QueryArgs {
  std::string file, event, source, function, binary;
  std::vector<std::string> files;  // file and the parts that follow it (a file per thread)
  long thread = -1;
  size_t n = 20;
  bool inclusive = false, tsv = false;
};

int parseQuery(const std::vector<std::string>& argv, QueryArgs& q, const char* cmd, bool wantFn) {
  Args args;
  if (int rc = parseArgs(cmd, argv, args)) return rc;
  q.event = args.get("--event");
  q.binary = args.get("--binary");
  q.source = args.get("--source");
  q.inclusive = args.has("--inclusive");
  q.tsv = args.has("--tsv");
  if (args.has("--thread") && (q.thread = number(args.get("--thread"), 0, LONG_MAX)) < 0)
    return usageError("--thread needs a thread index (see profpack info)");
  if (args.has("-n")) {
    const long n = number(args.get("-n"), 1, LONG_MAX);
    if (n < 0) return usageError("-n needs a positive number");
    q.n = static_cast<size_t>(n);
  }
  if (args.positional.empty()) return usageError(std::string(cmd) + " needs a profile file");
  q.files = args.positional;
  if (wantFn && q.files.size() > 1) {
    q.function = q.files.back();
    q.files.pop_back();
  }
  q.file = q.files[0];
  return 0;
}

int openQuery(const QueryArgs& q, Profile& p, size_t& event, std::string& eventName) {
  if (readInputs(q.files, nullptr, &p.p) != PROFPACK_OK) return failWith(q.file.c_str());
  printWarnings(p.p, q.file);
  if ((!q.binary.empty() || q.thread >= 0) && view(p, q.binary, q.thread) != PROFPACK_OK)
    return failWith(q.binary.empty() || q.thread >= 0 ? q.file.c_str() : q.binary.c_str());
  gProfile = p.p;
  gSigned = -1;
  size_t n = 0;
  if (profpack_profile_events(p.p, nullptr, 0, &n) != PROFPACK_OK) return failWith(q.file.c_str());
  if (n == 0) return failure(q.file, "the profile has no cost events");
  event = 0;
  if (!q.event.empty() && profpack_profile_event_index(p.p, q.event.c_str(), &event) != PROFPACK_OK)
    return failWith(q.file.c_str());
  std::vector<profpack_event> ev(n);
  profpack_profile_events(p.p, ev.data(), n, &n);
  eventName = ev[event].name;
  return 0;
}

std::string functionLabel(profpack_profile* p, size_t id) {
  profpack_function f;
  if (profpack_profile_function(p, id, &f) != PROFPACK_OK) return "?";
  uint64_t line = 0;
  profpack_profile_function_line(p, id, &line);
  std::string s =
      *f.file ? std::string(f.file) + ":" + (line ? std::to_string(line) + ":" : "") + f.name
              : f.name;
  if (*f.object) s += std::string(" [") + f.object + "]";
  return s;
}

// The keys that describe function `id` in a JSON object: id, name, file, line, object.
void jsonFunction(cli::Json& j, profpack_profile* p, size_t id) {
  profpack_function f{"", "", ""};
  profpack_profile_function(p, id, &f);
  uint64_t line = 0;
  profpack_profile_function_line(p, id, &line);
  j.key("id").integer(id).key("name").str(f.name).key("file").str(f.file);
  j.key("line").integer(line).key("object").str(f.object);
}

// The document's head shared by the query commands.
void jsonQueryHead(cli::Json& j, const QueryArgs& q, const std::string& event) {
  j.object().key("file").str(q.file).key("event").str(event).key("thread");
  q.thread >= 0 ? j.integer(static_cast<uint64_t>(q.thread)) : j.null();
}

// The callers (or callees) of function `id`, most costly first.
std::vector<profpack_call> arcs(profpack_profile* p, size_t id, size_t event, bool callers) {
  auto fn = callers ? profpack_profile_callers : profpack_profile_callees;
  size_t n = 0;
  if (fn(p, id, event, nullptr, 0, &n) != PROFPACK_OK) return {};
  std::vector<profpack_call> calls(n);
  if (fn(p, id, event, calls.data(), n, &n) != PROFPACK_OK) return {};
  calls.resize(std::min(n, calls.size()));
  return calls;
}

bool isRecursive(profpack_profile* p, size_t id, size_t event) {
  for (const profpack_call& c : arcs(p, id, event, false))
    if (c.function == id) return true;
  return false;
}

int cmdTop(const std::vector<std::string>& args) {
  QueryArgs q;
  if (int rc = parseQuery(args, q, "top", false)) return rc;
  Profile p;
  size_t event;
  std::string ev;
  if (int rc = openQuery(q, p, event, ev)) return rc;
  std::vector<size_t> ids(q.n);
  size_t count = 0;
  if (profpack_profile_top_functions(p.p, event, q.inclusive ? PROFPACK_TOP_INCLUSIVE : 0,
                                     ids.data(), ids.size(), &count) != PROFPACK_OK)
    return failWith(q.file.c_str());
  count = std::min(count, ids.size());  // every function is ranked; the first n were written
  size_t nev = 0;
  profpack_profile_events(p.p, nullptr, 0, &nev);
  std::vector<profpack_event> events(nev);
  profpack_profile_events(p.p, events.data(), nev, &nev);
  uint64_t total = events[event].total;
  if (gJson) {
    cli::Json j;
    jsonQueryHead(j, q, ev);
    double perSecond = 0;
    profpack_profile_units_per_second(p.p, &perSecond);
    j.key("total").integer(digits(total)).key("units_per_second").number(perSecond);
    j.key("rank").str(q.inclusive ? "inclusive" : "self");
    j.key("functions").array();
    for (size_t i = 0; i < count; ++i) {
      uint64_t self = 0, incl = 0, calls = 0;
      profpack_profile_function_cost(p.p, ids[i], event, &self, &incl);
      profpack_profile_function_calls(p.p, ids[i], &calls);
      j.object();
      jsonFunction(j, p.p, ids[i]);
      j.key("self").integer(digits(self)).key("inclusive").integer(digits(incl));
      j.key("calls").integer(digits(calls));
      j.key("recursive").boolean(isRecursive(p.p, ids[i], event)).end();
    }
    j.end();
    jsonWarnings(j);
    printJson(j.end());
    return 0;
  }
  if (q.tsv) {
    for (size_t i = 0; i < count; ++i) {
      uint64_t self = 0, incl = 0;
      profpack_profile_function_cost(p.p, ids[i], event, &self, &incl);
      const bool recursive = isRecursive(p.p, ids[i], event);
      profpack_function f;
      profpack_profile_function(p.p, ids[i], &f);
      std::printf("%s\t%s\t%d\t%s\t%s\t%s\n", digits(self).c_str(), digits(incl).c_str(),
                  recursive ? 1 : 0, f.file, f.name, f.object);
    }
    return 0;
  }
  // Where the events are time (a trace's ticks, a sampled profile's samples), seconds too;
  // and the calls where the profile counts them, as llvm-xray account shows them.
  double perSecond = 0;
  profpack_profile_units_per_second(p.p, &perSecond);
  std::vector<uint64_t> calls(count, 0);
  bool counted = false;
  for (size_t i = 0; i < count; ++i) {
    profpack_profile_function_calls(p.p, ids[i], &calls[i]);
    counted |= calls[i] != 0;
  }
  std::printf("%s total: %s", ev.c_str(), commas(total).c_str());
  if (perSecond > 0) std::printf(" (%.6fs)", value(total) / perSecond);
  std::printf("\n%s %s:\n", ev.c_str(), q.inclusive ? "inclusive" : "self");
  if (nev > 1 && q.event.empty()) {
    // Several events (Cachegrind, Callgrind with a cache simulation): every one, as
    // cg_annotate shows them, ranked by the first; --event picks one.
    std::vector<std::string> cells(nev);
    std::vector<size_t> width(nev);
    for (size_t e = 0; e < nev; ++e) width[e] = std::max<size_t>(strlen(events[e].name), 6);
    std::vector<std::vector<std::string>> rows(count + 1, std::vector<std::string>(nev));
    for (size_t e = 0; e < nev; ++e) rows[0][e] = commas(events[e].total);
    for (size_t i = 0; i < count; ++i)
      for (size_t e = 0; e < nev; ++e) {
        uint64_t self = 0, incl = 0;
        profpack_profile_function_cost(p.p, ids[i], e, &self, &incl);
        rows[i + 1][e] = commas(q.inclusive ? incl : self);
      }
    for (const auto& row : rows)
      for (size_t e = 0; e < nev; ++e) width[e] = std::max(width[e], row[e].size());
    auto line = [&](const std::vector<std::string>& cells, const std::string& label) {
      for (size_t e = 0; e < nev; ++e)
        std::printf("%s%*s", e ? "  " : "", static_cast<int>(width[e]), cells[e].c_str());
      std::printf("  %s\n", label.c_str());
    };
    for (size_t e = 0; e < nev; ++e) cells[e] = events[e].name;
    line(cells, "function");
    line(rows[0], "(total)");
    for (size_t i = 0; i < count; ++i) line(rows[i + 1], functionLabel(p.p, ids[i]));
    return 0;
  }
  for (size_t i = 0; i < count; ++i) {
    uint64_t self = 0, incl = 0;
    profpack_profile_function_cost(p.p, ids[i], event, &self, &incl);
    uint64_t c = q.inclusive ? incl : self;
    if (perSecond > 0) {
      std::printf("%15s (%6.2f%%) %12.6fs", commas(c).c_str(),
                  total ? 100.0 * value(c) / value(total) : 0.0, value(c) / perSecond);
      if (counted) std::printf(" %10s calls", commas(calls[i]).c_str());
      std::printf("  %s\n", functionLabel(p.p, ids[i]).c_str());
      continue;
    }
    std::printf("%15s (%6.2f%%)  %s\n", commas(c).c_str(),
                total ? 100.0 * value(c) / value(total) : 0.0, functionLabel(p.p, ids[i]).c_str());
  }
  return 0;
}

int cmdAnnotate(const std::vector<std::string>& args) {
  QueryArgs q;
  if (int rc = parseQuery(args, q, "annotate", false)) return rc;
  if (q.source.empty()) return usageError("annotate needs --source PATH");
  Profile p;
  size_t event;
  std::string ev;
  if (int rc = openQuery(q, p, event, ev)) return rc;
  size_t n = 0;
  if (profpack_profile_line_costs(p.p, q.source.c_str(), event, nullptr, 0, &n) != PROFPACK_OK)
    return failWith(q.file.c_str());
  std::vector<profpack_line_cost> lines(n);
  profpack_profile_line_costs(p.p, q.source.c_str(), event, lines.data(), n, &n);
  if (n == 0) return failure(q.file, "no costs recorded for source '" + q.source + "'");
  if (gJson) {
    cli::Json j;
    jsonQueryHead(j, q, ev);
    j.key("source").str(q.source).key("lines").array();
    for (size_t i = 0; i < lines.size() && i < n; ++i)
      j.object()
          .key("line")
          .integer(lines[i].line)
          .key("cost")
          .integer(digits(lines[i].cost))
          .end();
    j.end();
    jsonWarnings(j);
    printJson(j.end());
    return 0;
  }
  std::ifstream src(q.source);
  std::printf("%s per line of %s\n", ev.c_str(), q.source.c_str());
  if (!src) {
    for (auto& l : lines)
      std::printf("%8llu %15s\n", (unsigned long long)l.line, commas(l.cost).c_str());
    return 0;
  }
  std::string text;
  size_t li = 0;
  while (li < n && lines[li].line == 0) ++li;
  for (uint64_t no = 1; std::getline(src, text); ++no) {
    std::string cost;
    if (li < n && lines[li].line == no) cost = commas(lines[li++].cost);
    std::printf("%15s  %5llu  %s\n", cost.c_str(), (unsigned long long)no, text.c_str());
  }
  for (; li < n; ++li)
    std::printf("%15s  %5llu  (past the end of the source file)\n", commas(lines[li].cost).c_str(),
                (unsigned long long)lines[li].line);
  return 0;
}

int cmdCalls(const std::vector<std::string>& args) {
  QueryArgs q;
  if (int rc = parseQuery(args, q, "calls", true)) return rc;
  if (q.function.empty()) return usageError("calls needs a FUNCTION name");
  Profile p;
  size_t event;
  std::string ev;
  if (int rc = openQuery(q, p, event, ev)) return rc;
  // A profile without call arcs (Cachegrind, DCPI) says so rather than list none. Asked only
  // of a function with neither callers nor callees: profpack_profile_info counts the whole
  // profile.
  int noArcs = -1;
  auto recordsNoCalls = [&] {
    if (noArcs < 0) {
      profpack_info info;
      profpack_info_init(&info);
      noArcs = profpack_profile_info(p.p, &info) == PROFPACK_OK &&
               (info.capabilities & PROFPACK_HAS_CALL_ARCS) == 0;
    }
    return noArcs == 1;
  };
  // FUNCTION: a name, FILE:FUNCTION, or a regular expression (as pprof's -focus).
  size_t nf = 0;
  if (profpack_profile_find_functions(p.p, q.function.c_str(), 0, nullptr, 0, &nf) != PROFPACK_OK)
    return failWith(q.file.c_str());
  std::vector<size_t> matches(nf);
  profpack_profile_find_functions(p.p, q.function.c_str(), 0, matches.data(), nf, &nf);
  bool found = false;
  cli::Json j;
  if (gJson) {
    jsonQueryHead(j, q, ev);
    j.key("function").str(q.function).key("matches").array();
  }
  for (size_t id : matches) {
    found = true;
    if (gJson) {
      uint64_t self = 0, incl = 0, count = 0;
      profpack_profile_function_cost(p.p, id, event, &self, &incl);
      profpack_profile_function_calls(p.p, id, &count);
      j.object();
      jsonFunction(j, p.p, id);
      j.key("self").integer(digits(self)).key("inclusive").integer(digits(incl));
      j.key("calls").integer(digits(count));
      for (int dir = 0; dir < 2; ++dir) {
        j.key(dir == 0 ? "callers" : "callees").array();
        for (const profpack_call& c : arcs(p.p, id, event, dir == 0)) {
          j.object();
          jsonFunction(j, p.p, c.function);
          j.key("calls").integer(digits(c.calls));
          j.key("inclusive").integer(digits(c.inclusive)).end();
        }
        j.end();
      }
      j.end();
      continue;
    }
    uint64_t self = 0, incl = 0;
    profpack_profile_function_cost(p.p, id, event, &self, &incl);
    std::printf("%s\n  %s self %s, inclusive %s\n", functionLabel(p.p, id).c_str(), ev.c_str(),
                commas(self).c_str(), commas(incl).c_str());
    const std::vector<profpack_call> lists[2] = {arcs(p.p, id, event, true),
                                                 arcs(p.p, id, event, false)};
    if (lists[0].empty() && lists[1].empty() && recordsNoCalls()) {
      std::printf("  (%s profiles record no calls: no callers or callees to show)\n",
                  profpack_format_name(profpack_profile_format(p.p)));
      continue;
    }
    for (int dir = 0; dir < 2; ++dir) {
      std::printf("  %s:\n", dir == 0 ? "callers" : "callees");
      for (const profpack_call& c : lists[dir])
        std::printf("    %15s %10s calls  %s\n", commas(c.inclusive).c_str(),
                    commas(c.calls).c_str(), functionLabel(p.p, c.function).c_str());
    }
  }
  if (!found) {
    std::vector<size_t> near(20);  // several functions may share a name: five names of them
    size_t n = 0;
    profpack_profile_find_functions(p.p, q.function.c_str(), PROFPACK_FIND_SIMILAR, near.data(),
                                    near.size(), &n);
    std::string hint;
    std::vector<std::string> named;
    for (size_t i = 0; i < n && i < near.size() && named.size() < 5; ++i) {
      profpack_function f;
      if (profpack_profile_function(p.p, near[i], &f) != PROFPACK_OK ||
          std::find(named.begin(), named.end(), f.name) != named.end())
        continue;
      named.push_back(f.name);
      hint += std::string(hint.empty() ? "; did you mean " : ", ") + "'" + f.name + "'";
    }
    return failure(q.file, "no function named or matching '" + q.function + "'" + hint);
  }
  if (gJson) {
    j.end();
    jsonWarnings(j);
    printJson(j.end());
  }
  return 0;
}

// With --json, what merge, diff and symbolize made: the output, its format, events and totals.
int jsonSummary(profpack_profile* p, const std::vector<std::string>& inputs, const std::string& out,
                profpack_format fmt) {
  if (!gJson) return 0;
  gProfile = p;
  gSigned = -1;
  profpack_info info;
  profpack_info_init(&info);
  if (profpack_profile_info(p, &info) != PROFPACK_OK) return failWith(out.c_str());
  cli::Json j;
  j.object().key("inputs").array();
  for (const std::string& in : inputs) j.str(in);
  j.end().key("output").str(out).key("output_format").str(profpack_format_name(fmt));
  j.key("functions").integer(info.functions);
  j.key("signed_costs").boolean(info.signed_costs != 0);
  jsonEvents(j, p);
  jsonWarnings(j);
  printJson(j.end());
  return 0;
}

int cmdMerge(const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs("merge", argv, args)) return rc;
  const std::string out = args.get("--output");
  if (args.positional.empty()) return usageError("merge needs input files");
  if (out.empty()) return usageError("merge needs -o OUT");
  if (args.has("--to") &&
      outputFormat(args, out, PROFPACK_FORMAT_UNKNOWN) == PROFPACK_FORMAT_UNKNOWN)
    return 2;
  // One input at a time: each is freed once added, so memory stays that of the result.
  struct Merger {
    profpack_merger* m = nullptr;
    ~Merger() { profpack_merger_free(m); }
  } merger;
  if (profpack_merger_new(&merger.m) != PROFPACK_OK) return failWith("merge");
  for (const auto& [name, value] : args.repeated) {
    if (name != "--event") continue;
    const size_t eq = value.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == value.size())
      return usageError("--event takes FROM=TO");
    if (profpack_merger_rename_event(merger.m, value.substr(0, eq).c_str(),
                                     value.substr(eq + 1).c_str()) != PROFPACK_OK)
      return failWith("merge");
  }
  for (const std::string& file : args.positional) {
    Profile in;
    if (profpack_read_file(file.c_str(), nullptr, &in.p) != PROFPACK_OK)
      return failWith(file.c_str());
    printWarnings(in.p, file);
    if (profpack_merger_add(merger.m, in.p, file.c_str()) != PROFPACK_OK) return failWith("merge");
  }
  Profile merged;
  if (profpack_merger_finish(merger.m, &merged.p) != PROFPACK_OK) return failWith("merge");
  const profpack_format fmt = outputFormat(args, out, profpack_profile_format(merged.p));
  if (profpack_write_file(merged.p, fmt, out.c_str(), nullptr) != PROFPACK_OK)
    return failWith(out.c_str());
  return jsonSummary(merged.p, args.positional, out, fmt);
}

int cmdDiff(const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs("diff", argv, args)) return rc;
  const std::string out = args.get("--output");
  if (args.positional.size() != 2) return usageError("diff takes two files: BASE NEW");
  if (out.empty()) return usageError("diff needs -o OUT");
  if (args.has("--to") &&
      outputFormat(args, out, PROFPACK_FORMAT_UNKNOWN) == PROFPACK_FORMAT_UNKNOWN)
    return 2;
  Profile in[2];
  for (size_t i = 0; i < 2; ++i) {
    const std::string& file = args.positional[i];
    if (profpack_read_file(file.c_str(), nullptr, &in[i].p) != PROFPACK_OK)
      return failWith(file.c_str());
    printWarnings(in[i].p, file);
  }
  std::vector<const char*> files, funcs;
  std::vector<const char*> renames;
  for (const auto& [name, value] : args.repeated) {
    if (name == "--mod-filename") files.push_back(value.c_str());
    if (name == "--mod-funcname") funcs.push_back(value.c_str());
    if (name == "--event") renames.push_back(value.c_str());
  }
  profpack_diff_options o;
  profpack_diff_options_init(&o);
  o.mod_filename = files.data();
  o.mod_filename_count = files.size();
  o.mod_funcname = funcs.data();
  o.mod_funcname_count = funcs.size();
  o.event_renames = renames.data();
  o.event_renames_count = renames.size();
  o.base_name = args.positional[0].c_str();
  o.current_name = args.positional[1].c_str();
  Profile d;
  if (profpack_diff(in[0].p, in[1].p, &o, &d.p) != PROFPACK_OK) return failWith("diff");
  const profpack_format fmt = outputFormat(args, out, profpack_profile_format(d.p));
  if (profpack_write_file(d.p, fmt, out.c_str(), nullptr) != PROFPACK_OK)
    return failWith(out.c_str());
  return jsonSummary(d.p, args.positional, out, fmt);
}

int cmdSymbolize(const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs("symbolize", argv, args)) return rc;
  const std::string out = args.get("--output");
  if (args.positional.size() != 1) return usageError("symbolize takes one input file");
  if (out.empty()) return usageError("symbolize needs -o OUT");
  const profpack_format fmt = outputFormat(args, out, PROFPACK_FORMAT_PPK);
  if (fmt == PROFPACK_FORMAT_UNKNOWN) return 2;
  const std::string& file = args.positional[0];
  Profile in;
  if (profpack_read_file(file.c_str(), nullptr, &in.p) != PROFPACK_OK)
    return failWith(file.c_str());
  printWarnings(in.p, file);
  std::vector<const char*> dirs;
  for (const auto& [name, value] : args.repeated)
    if (name == "--binary-path") dirs.push_back(value.c_str());
  profpack_symbolize_options o;
  profpack_symbolize_options_init(&o);
  o.binary_path = dirs.data();
  o.binary_path_count = dirs.size();
  const std::string binary = args.get("--binary");
  if (!binary.empty()) o.binary = binary.c_str();
  Profile s;
  if (profpack_profile_symbolize(in.p, &o, &s.p) != PROFPACK_OK) return failWith("symbolize");
  printWarnings(s.p, file);
  if (profpack_write_file(s.p, fmt, out.c_str(), nullptr) != PROFPACK_OK)
    return failWith(out.c_str());
  return jsonSummary(s.p, args.positional, out, fmt);
}

int cmdEqual(const std::vector<std::string>& args) {
  if (args.size() != 2) return usageError("equal takes two files");
  Profile a, b;
  if (profpack_read_file(args[0].c_str(), nullptr, &a.p) != PROFPACK_OK)
    return failWith(args[0].c_str());
  if (profpack_read_file(args[1].c_str(), nullptr, &b.p) != PROFPACK_OK)
    return failWith(args[1].c_str());
  int equal = 0;
  if (profpack_profile_equal(a.p, b.p, &equal) != PROFPACK_OK) return failWith("equal");
  std::printf("%s\n", equal ? "same IR" : "different IR");
  return equal ? 0 : 1;
}

// One command, one large input, a few threads: the heap is tuned for that, unless the user set
// GLIBC_TUNABLES (then those decide).
// - Freed memory is kept for the next allocation instead of every large block going back to
//   the kernel and fresh pages being faulted in for the next (glibc maps blocks from 128 KiB up
//   on their own).
// - The helper threads allocate from the one heap too, not from arenas of their own.
// - The heap grows in one step of 256 MiB of address space, on transparent huge pages where the
//   kernel allows them (madvise mode is the usual default): one fault per 2 MiB instead of per
//   4 KiB. Pages are still only used where touched, a huge page at a time.
// Converting a 50 MB gperftools profile to Callgrind faults about 8,000 pages in without these,
// 3,000 with them, and takes 12-15% less time for 1-3 MB more at the peak (2026-11-25).
void tuneHeap() {
  if (std::getenv("GLIBC_TUNABLES")) return;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest (64-bit)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_ARENA_MAX, 1);
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  mallopt(M_TOP_PAD, 256 << 20);
  const uintptr_t before = reinterpret_cast<uintptr_t>(sbrk(0));
  void* volatile grow = std::malloc(1 << 20);  // more than the heap has: it grows by the pad
  std::free(grow);
  // What the heap grew by, if it could grow (else the block came from mmap: nothing to do).
  const uintptr_t from = (before + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t to = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHuge - 1);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
  mallopt(M_TOP_PAD, 0);  // glibc's default: later growth as usual
}

}  // namespace

int cmdArchive(const std::vector<std::string>& args);  // tools/archive.cpp

int main(int argc, char** argv) {
  tuneHeap();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("profpack %s\n", profpack_version_string());
    return 0;
  }
  if (cmd == "archive") return cmdArchive(args);
  for (const std::string& a : args) gJson |= a == "--json";
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (cmd == "convert") return cmdConvert(args);
  if (cmd == "info") return cmdInfo(args);
  if (cmd == "top") return cmdTop(args);
  if (cmd == "annotate") return cmdAnnotate(args);
  if (cmd == "calls") return cmdCalls(args);
  if (cmd == "merge") return cmdMerge(args);
  if (cmd == "diff") return cmdDiff(args);
  if (cmd == "symbolize") return cmdSymbolize(args);
  if (cmd == "equal") return cmdEqual(args);
  return usageError("unknown command '" + cmd + "'");
}
