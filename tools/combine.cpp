// profpack merge, diff, symbolize and equal: commands that make a profile of profiles.

#include <cstdio>

#include "cli.h"

namespace cli {

// With --json, what merge, diff and symbolize made: the output, its format, events and totals.
namespace {

int jsonSummary(Invocation& s, profpack_profile* p, const std::vector<std::string>& inputs,
                const std::string& out, profpack_format fmt) {
  if (!s.json) return 0;
  const Costs costs(p);
  profpack_info info;
  profpack_info_init(&info);
  if (profpack_profile_info(p, &info) != PROFPACK_OK) return failWith(s, out.c_str());
  Json j;
  j.object().key("inputs").array();
  for (const std::string& in : inputs) j.str(in);
  j.end().key("output").str(out).key("output_format").str(profpack_format_name(fmt));
  j.key("functions").integer(info.functions);
  j.key("signed_costs").boolean(info.signed_costs != 0);
  costs.jsonEvents(j);
  jsonWarnings(s, j);
  printJson(j.end());
  return 0;
}

}  // namespace

int cmdMerge(Invocation& s, const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs(s, "merge", argv, args)) return rc;
  const std::string out = args.get("--output");
  if (args.positional.empty()) return usageError(s, "merge needs input files");
  if (out.empty()) return usageError(s, "merge needs -o OUT");
  profpack_write_options wo;  // checked before anything is read
  if (int rc = writeOptions(s, args, wo)) return rc;
  if (args.has("--to") &&
      outputFormat(s, args, out, PROFPACK_FORMAT_UNKNOWN) == PROFPACK_FORMAT_UNKNOWN)
    return 2;
  // One input at a time: each is freed once added, so memory stays that of the result.
  struct Merger {
    profpack_merger* m = nullptr;
    ~Merger() { profpack_merger_free(m); }
  } merger;
  if (profpack_merger_new(&merger.m) != PROFPACK_OK) return failWith(s, "merge");
  for (const auto& [name, value] : args.repeated) {
    if (name != "--event") continue;
    const size_t eq = value.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == value.size())
      return usageError(s, "--event takes FROM=TO");
    if (profpack_merger_rename_event(merger.m, value.substr(0, eq).c_str(),
                                     value.substr(eq + 1).c_str()) != PROFPACK_OK)
      return failWith(s, "merge");
  }
  for (const std::string& file : args.positional) {
    Profile in;
    if (profpack_read_file(file.c_str(), nullptr, &in.p) != PROFPACK_OK)
      return failWith(s, file.c_str());
    printWarnings(s, in.p, file);
    if (profpack_merger_add(merger.m, in.p, file.c_str()) != PROFPACK_OK)
      return failWith(s, "merge");
  }
  Profile merged;
  if (profpack_merger_finish(merger.m, &merged.p) != PROFPACK_OK) return failWith(s, "merge");
  const profpack_format fmt = outputFormat(s, args, out, profpack_profile_format(merged.p));
  if (int rc = writeOutput(s, args, merged.p, fmt, out)) return rc;
  return jsonSummary(s, merged.p, args.positional, out, fmt);
}

int cmdDiff(Invocation& s, const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs(s, "diff", argv, args)) return rc;
  const std::string out = args.get("--output");
  if (args.positional.size() != 2) return usageError(s, "diff takes two files: BASE NEW");
  if (out.empty()) return usageError(s, "diff needs -o OUT");
  profpack_write_options wo;  // checked before anything is read
  if (int rc = writeOptions(s, args, wo)) return rc;
  if (args.has("--to") &&
      outputFormat(s, args, out, PROFPACK_FORMAT_UNKNOWN) == PROFPACK_FORMAT_UNKNOWN)
    return 2;
  Profile in[2];
  for (size_t i = 0; i < 2; ++i) {
    const std::string& file = args.positional[i];
    if (profpack_read_file(file.c_str(), nullptr, &in[i].p) != PROFPACK_OK)
      return failWith(s, file.c_str());
    printWarnings(s, in[i].p, file);
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
  if (profpack_diff(in[0].p, in[1].p, &o, &d.p) != PROFPACK_OK) return failWith(s, "diff");
  const profpack_format fmt = outputFormat(s, args, out, profpack_profile_format(d.p));
  if (int rc = writeOutput(s, args, d.p, fmt, out)) return rc;
  return jsonSummary(s, d.p, args.positional, out, fmt);
}

int cmdSymbolize(Invocation& s, const std::vector<std::string>& argv) {
  Args args;
  if (int rc = parseArgs(s, "symbolize", argv, args)) return rc;
  const std::string out = args.get("--output");
  if (args.positional.size() != 1) return usageError(s, "symbolize takes one input file");
  if (out.empty()) return usageError(s, "symbolize needs -o OUT");
  const profpack_format fmt = outputFormat(s, args, out, PROFPACK_FORMAT_PPK);
  if (fmt == PROFPACK_FORMAT_UNKNOWN) return 2;
  const std::string& file = args.positional[0];
  Profile in;
  if (profpack_read_file(file.c_str(), nullptr, &in.p) != PROFPACK_OK)
    return failWith(s, file.c_str());
  printWarnings(s, in.p, file);
  profpack_read_options ro;  // only for its binary_path
  profpack_read_options_init(&ro);
  SymbolizeOnRead dirs;
  dirs.apply(args, ro);
  profpack_symbolize_options o;
  profpack_symbolize_options_init(&o);
  o.binary_path = ro.binary_path;
  o.binary_path_count = ro.binary_path_count;
  const std::string binary = args.get("--binary");
  if (!binary.empty()) o.binary = binary.c_str();
  const std::string kallsyms = args.get("--kallsyms");
  if (!kallsyms.empty()) o.kallsyms = kallsyms.c_str();
  o.symbol_tables_only = args.has("--symbol-tables-only");
  Profile named;
  if (profpack_profile_symbolize(in.p, &o, &named.p) != PROFPACK_OK)
    return failWith(s, "symbolize");
  printWarnings(s, named.p, file);
  if (profpack_write_file(named.p, fmt, out.c_str(), nullptr) != PROFPACK_OK)
    return failWith(s, out.c_str());
  return jsonSummary(s, named.p, args.positional, out, fmt);
}

int cmdEqual(Invocation& s, const std::vector<std::string>& args) {
  if (args.size() != 2) return usageError(s, "equal takes two files");
  Profile a, b;
  if (profpack_read_file(args[0].c_str(), nullptr, &a.p) != PROFPACK_OK)
    return failWith(s, args[0].c_str());
  if (profpack_read_file(args[1].c_str(), nullptr, &b.p) != PROFPACK_OK)
    return failWith(s, args[1].c_str());
  int equal = 0;
  if (profpack_profile_equal(a.p, b.p, &equal) != PROFPACK_OK) return failWith(s, "equal");
  std::printf("%s\n", equal ? "same IR" : "different IR");
  return equal ? 0 : 1;
}

}  // namespace cli
