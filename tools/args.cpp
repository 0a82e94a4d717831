// The CLI's options: one table of the CLI's own, the library's write parameters, one parser.

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string_view>

#include "cli.h"

namespace cli {

namespace {

// The commands that write a profile take the library's write parameters.
constexpr const char* kWriters = "convert merge diff";

// The names of the formats the library writes, '|'-separated.
std::string writtenFormats() {
  std::string out;
  for (int f = 1;; ++f) {
    profpack_format_info info;
    profpack_format_info_init(&info);
    if (profpack_format_describe(static_cast<profpack_format>(f), &info) != PROFPACK_OK) break;
    if (info.flags & PROFPACK_FORMAT_WRITABLE)
      out += (out.empty() ? "" : "|") + std::string(info.name);
  }
  return out;
}

std::vector<OptionSpec> ownOptions() {
  return {
      {"--output", "-o", "a file name", "convert merge diff symbolize",
       "the output file ('-': standard output)", "OUT", false, true},
      {"--to", "", "a format name", "convert merge diff symbolize",
       "the output format (" + writtenFormats() + "), else the one OUT's name says", "FORMAT"},
      {"--binary-path", "", "a directory (DIR[:DIR...])",
       "info top annotate calls convert symbolize",
       "directories of binaries, searched by base name and recorded path", "DIR[:DIR...]", true},
      {"--no-symbolize", "", "", "info top annotate calls convert",
       "keep addresses: do not name them from the binaries the profile records", ""},
      {"--symbol-tables-only", "", "", "info top annotate calls convert symbolize",
       "name functions from symbol tables only, as perf script does: no DWARF, so no source "
       "lines or inline frames, and no debug information decompressed",
       ""},
      {"--mod-filename", "", "an expression s/REGEX/REPLACEMENT/", "diff",
       "rewrite file names before matching (as cg_diff's)", "s/RE/REPL/[g]", true},
      {"--mod-funcname", "", "an expression s/REGEX/REPLACEMENT/", "diff",
       "rewrite function names before matching (as cg_diff's)", "s/RE/REPL/[g]", true},
      {"--binary", "", "an XRay-instrumented executable", "info top annotate calls symbolize",
       "XRay only: the instrumented executable, whose xray_instr_map names the function ids",
       "BIN"},
      {"--kallsyms", "", "a kallsyms table (a copy of /proc/kallsyms)", "symbolize",
       "the recorded kernel's symbols, to name kernel frames", "FILE"},
      {"--thread", "", "a thread index (see profpack info)", "top annotate calls",
       "only thread N of the list `info` prints", "N"},
      {"--tag", "", "KEY=REGEX (a label selector)", "info top annotate calls",
       "only samples with a label KEY whose value REGEX matches (pprof's -tagfocus)", "KEY=REGEX",
       true},
      {"--event", "", "an event name", "top annotate calls", "the event to rank by", "E"},
      {"--event", "", "FROM=TO (an event rename)", "merge diff",
       "rename an event in every input first", "FROM=TO", true},
      {"--source", "", "a source file's path", "annotate", "the source file to annotate", "PATH",
       false, true},
      {"-n", "", "a positive number", "top", "how many functions (default 20)", "N"},
      {"--inclusive", "", "", "top", "rank by inclusive cost", ""},
      {"--tsv", "", "", "top", "tab-separated columns for tools", ""},
      {"--json", "", "", "info top annotate calls merge diff symbolize",
       "one JSON document for programs (docs/cli.md)", ""},
  };
}

// The library's write parameters as options: --NAME VALUE, checked by the library.
std::vector<OptionSpec> writeParamOptions() {
  std::vector<OptionSpec> out;
  for (size_t i = 0; i < profpack_write_param_count(); ++i) {
    profpack_write_param_info info;
    profpack_write_param_info_init(&info);
    if (profpack_write_param_describe(i, &info) != PROFPACK_OK) continue;
    std::string meta = info.is_string ? "VALUE" : "N";
    if (info.choices) {
      meta.clear();
      for (std::string_view c = info.choices; !c.empty();) {
        const size_t comma = std::min(c.find(','), c.size());
        meta += (meta.empty() ? "" : "|") + std::string(c.substr(0, c.substr(0, comma).find('=')));
        c.remove_prefix(std::min(comma + 1, c.size()));
      }
    }
    out.push_back({std::string("--") + info.name, "", info.values, kWriters, info.help, meta});
  }
  return out;
}

}  // namespace

const std::vector<OptionSpec>& optionSpecs() {
  static const std::vector<OptionSpec> all = [] {
    std::vector<OptionSpec> v = ownOptions();
    std::vector<OptionSpec> params = writeParamOptions();
    v.insert(v.begin() + 5, params.begin(), params.end());  // after the diff rewrites
    return v;
  }();
  return all;
}

bool takes(const OptionSpec& o, const std::string& command) {
  std::string_view list = o.commands;
  for (size_t pos = 0; pos <= list.size();) {
    size_t end = list.find(' ', pos);
    if (end == list.npos) end = list.size();
    if (list.substr(pos, end - pos) == command) return true;
    pos = end + 1;
  }
  return false;
}

int parseArgs(Invocation& s, const std::string& command, const std::vector<std::string>& argv,
              Args& out) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& o : optionSpecs())
      if ((a == o.name || (!o.alias.empty() && a == o.alias)) && (!spec || takes(o, command)))
        spec = &o;
    if (!spec || !takes(*spec, command))
      return usageError(s, "unknown option '" + a + "' for " + command);
    if (spec->value.empty()) {
      out.options[spec->name] = "";
    } else if (i + 1 < argv.size()) {
      out.options[spec->name] = argv[++i];
      out.repeated.emplace_back(spec->name, argv[i]);
    } else {
      return usageError(s, a + " needs " + spec->value);
    }
  }
  return 0;
}

long number(const std::string& text, long lo, long hi) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || v < lo || v > hi) return -1;
  return v;
}

}  // namespace cli
