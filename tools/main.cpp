// profpack: the command-line front end. It uses only the public C API. The commands are a
// table; the general help and each command's help are made from it and the option table.

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli.h"

namespace cli {

namespace {

struct CommandSpec {
  const char* name;
  Command run;
  const char* operands;  // "IN [PART...]"
  const char* about;     // what it does; lines of the help, '\n'-separated
  bool listsFormats = false;  // the help lists the library's formats after `about`
};

// `profpack archive SUBCOMMAND ...` (archive.cpp) parses its own arguments.
int runArchive(Invocation&, const std::vector<std::string>& argv) { return ::cmdArchive(argv); }

constexpr CommandSpec kCommands[] = {
    {"convert", cmdConvert, "IN [PART...]",
     "Convert a profile. The input format is detected from the content. FORMAT is a\n"
     "format below that is written; without --to, OUT's name decides by the names below,\n"
     "and any other name is written as ppk. A format that cannot hold what the input has\n"
     "is refused with the reason (docs/formats.md has the whole matrix). '-' means\n"
     "standard input / output.",
     true},
    {"info", cmdInfo, "FILE [PART...]",
     "Print format and version, parts, events with totals, and counts of functions,\n"
     "files and objects."},
    {"top", cmdTop, "FILE [PART...]",
     "The N (default 20) most costly functions by self (or inclusive) cost of event E\n"
     "(default: the first event). --tsv prints tab-separated columns for tools: self,\n"
     "inclusive, recursive (1 if it calls itself), file, function, object."},
    {"annotate", cmdAnnotate, "FILE [PART...]",
     "Per-line self cost of one source file; with the source text when PATH is readable."},
    {"calls", cmdCalls, "FILE [PART...] FUNCTION",
     "Callers and callees of every function named FUNCTION, with call counts and\n"
     "inclusive costs."},
    {"merge", cmdMerge, "A B [C ...]",
     "Sum profiles (cg_merge, pprof -proto A B): per function, line, call arc and stack.\n"
     "The inputs need the same events; --event renames one in every input first.\n"
     "FORMAT, or OUT's name, as for convert; a name that says no format gets the\n"
     "inputs' own: Cachegrind inputs merge into Cachegrind, gperftools into gperftools,\n"
     "others into Callgrind."},
    {"diff", cmdDiff, "BASE NEW",
     "NEW - BASE (cg_diff): signed costs per function, line and call arc. The rewrites\n"
     "(repeatable, as cg_diff's) line up names from two build directories. FORMAT or\n"
     "OUT's name as for merge: Cachegrind inputs give Cachegrind, pprof inputs and\n"
     "profiles with stacks give pprof (as go tool pprof -diff_base), others Callgrind."},
    {"symbolize", cmdSymbolize, "IN",
     "Name the addresses of a gperftools or DCPI profile from the ELF binaries its\n"
     "mappings name (or DIR/<base name>, then the PROFPACK_BINARY_PATH directories):\n"
     "functions, files, lines and inline frames, kept in the .ppk for every later query.\n"
     "An XRay trace takes --binary, the instrumented executable: names, files, lines."},
    {"equal", cmdEqual, "A B",
     "Exit 0 if A and B hold the same IR (e.g. an original and its round trip through\n"
     ".ppk), 1 if not."},
    {"archive", runArchive, "add|list|extract|merge|diff|trend|verify|compact ARCHIVE ...",
     "Keep many profiles in one .ppka archive (members share a compression dictionary):\n"
     "add ARCHIVE FILE... [--label k=v]... [--time T] [--symbolize]; list ARCHIVE\n"
     "[--where k=v]... [--since T] [--until T] [--json]; extract ARCHIVE ID -o OUT; merge\n"
     "ARCHIVE [--where k=v]... [--since T] [--until T] -o OUT [--to FORMAT]; diff ARCHIVE\n"
     "--base SELECTION --new SELECTION -o OUT [--to FORMAT]; trend ARCHIVE FUNCTION\n"
     "[--event E] [SELECTION] [--json]; verify ARCHIVE; compact ARCHIVE. SELECTION is\n"
     "[--where k=v]... [--since T] [--until T]; T is seconds since 1970 UTC; ID a member's id\n"
     "(from list)."},
};

constexpr const char* kCommon =
    "  --binary BIN (info, top, annotate, calls): XRay only: the instrumented executable,\n"
    "      whose xray_instr_map names the trace's function ids. Other formats are named from\n"
    "      the binaries their mappings record (--binary-path, PROFPACK_BINARY_PATH, the\n"
    "      recorded path) as they are read; --no-symbolize keeps the addresses.\n"
    "  --thread N (top, annotate, calls): only thread N of the list `info` prints (XRay\n"
    "      threads; Callgrind parts with a thread: line).\n"
    "  --json (info, top, annotate, calls, merge, diff, symbolize): print one JSON document\n"
    "      for programs instead of text, and failures as a JSON object on stderr. The shapes\n"
    "      and exit codes are in docs/cli.md.\n"
    "  PART (info, top, annotate, calls, convert): more files of the same profile, read as\n"
    "      one: valgrind's --separate-threads=yes writes a Callgrind file per thread\n"
    "      (callgrind.out.PID-01, -02, ...), each a thread of the profile, as in KCachegrind.\n"
    "  --version, --help (also after a command: that command's options)\n"
    "\n"
    "exit status: 0 success, 1 failure (unreadable or malformed input, nothing found, `equal`\n"
    "of different profiles), 2 usage error.\n";

constexpr size_t kWidth = 92;

// "convert IN [PART...] -o OUT [--to FORMAT] ...", wrapped at kWidth with `indent` spaces
// before each line after the first.
std::string synopsis(const CommandSpec& c, size_t indent) {
  std::vector<std::string> words = {std::string(c.name) + " " + c.operands};
  for (const OptionSpec& o : optionSpecs()) {
    if (!takes(o, c.name)) continue;
    const std::string spelled = o.alias.empty() ? o.name : o.alias;
    std::string w = o.meta.empty() ? spelled : spelled + " " + o.meta;
    if (!o.required) w = "[" + w + "]";
    words.push_back(o.repeated ? w + "..." : w);
  }
  std::string out, line;
  for (const std::string& w : words) {
    if (!line.empty() && line.size() + 1 + w.size() > kWidth - indent) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  return out + line;
}

std::string indented(const char* text, size_t indent) {
  std::string out(indent, ' ');
  for (const char* t = text; *t; ++t) {
    out += *t;
    if (*t == '\n') out += std::string(indent, ' ');
  }
  return out + "\n";
}

// The library's formats (profpack_format_describe), one a line: name, whether it is read and
// written, the output names that choose it without --to, and what it is.
std::string formatTable(size_t indent) {
  std::string out;
  for (int f = 1;; ++f) {
    profpack_format_info info;
    profpack_format_info_init(&info);
    if (profpack_format_describe(static_cast<profpack_format>(f), &info) != PROFPACK_OK) break;
    const bool r = info.flags & PROFPACK_FORMAT_READABLE, w = info.flags & PROFPACK_FORMAT_WRITABLE;
    std::string names = info.endings;
    if (*info.file_names) names += (names.empty() ? "" : " ") + std::string(info.file_names);
    char head[128];
    std::snprintf(head, sizeof head, "%-12s %-11s ", info.name,
                  r && w ? "read, write"
                  : r    ? "read only"
                         : "write only");
    std::string line = std::string(indent, ' ') + head + info.description;
    if (w && !names.empty()) {
      const std::string tail = "; OUT: " + names;
      if (line.size() + tail.size() > kWidth)
        line += "\n" + std::string(indent + 25, ' ') + tail.substr(2);
      else
        line += tail;
    }
    out += line + "\n";
  }
  return out;
}

std::string about(const CommandSpec& c, size_t indent) {
  std::string a = indented(c.about, indent);
  if (c.listsFormats) a += formatTable(indent + 2);
  return a;
}

std::string usage() {
  std::string u = "usage: profpack <command> [options]\n\ncommands:\n";
  for (const CommandSpec& c : kCommands) u += "  " + synopsis(c, 10) + "\n" + about(c, 6);
  return u + kCommon;
}

std::string commandHelp(const CommandSpec& c) {
  std::string h = "usage: profpack " + synopsis(c, 16) + "\n\n" + about(c, 2);
  h += "\noptions:\n";
  for (const OptionSpec& o : optionSpecs()) {
    if (!takes(o, c.name)) continue;
    std::string left = "  " + (o.alias.empty() ? "" : o.alias + ", ") + o.name;
    if (!o.meta.empty()) left += " " + o.meta;
    left += left.size() < 28 ? std::string(28 - left.size(), ' ') : "\n" + std::string(28, ' ');
    h += left + o.help + (o.repeated ? " (repeatable)" : "") + "\n";
  }
  return h;
}

}  // namespace

}  // namespace cli

int main(int argc, char** argv) {
  using namespace cli;
  tuneHeap();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("profpack %s\n", profpack_version_string());
    return 0;
  }
  Invocation s;
  for (const std::string& a : args) s.json |= a == "--json";
  const CommandSpec* command = nullptr;
  for (const CommandSpec& c : kCommands)
    if (cmd == c.name) command = &c;
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(command ? commandHelp(*command).c_str() : usage().c_str(), stdout);
      return 0;
    }
  if (!command) return usageError(s, "unknown command '" + cmd + "'");
  // The library reports its failures through the C ABI; this catches what the CLI's own
  // containers throw (an allocation refused), so it ends with a message, not an abort.
  try {
    return command->run(s, args);
  } catch (const std::bad_alloc&) {
    return failure(s, cmd, "out of memory");
  } catch (const std::exception& e) {
    return failure(s, cmd, std::string("internal error: ") + e.what());
  }
}
