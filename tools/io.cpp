// The CLI's inputs and outputs: reading one profile from its files, views, the output format
// and the write parameters.

#include <cstdio>

#include "cli.h"

namespace cli {

void SymbolizeOnRead::apply(const Args& args, profpack_read_options& ro) {
  if (args.has("--no-symbolize")) return;
  ro.flags |= PROFPACK_READ_SYMBOLIZE;
  if (args.has("--symbol-tables-only")) ro.flags |= PROFPACK_READ_SYMBOL_TABLES_ONLY;
  for (const auto& [name, value] : args.repeated) {
    if (name != "--binary-path") continue;
    for (size_t pos = 0; pos <= value.size();) {
      size_t colon = value.find(':', pos);
      if (colon == std::string::npos) colon = value.size();
      if (colon > pos) dirs.push_back(value.substr(pos, colon - pos));
      pos = colon + 1;
    }
  }
  for (const std::string& d : dirs) ptrs.push_back(d.c_str());
  ro.binary_path = ptrs.data();
  ro.binary_path_count = ptrs.size();
}

profpack_status readInputs(const std::vector<std::string>& files,
                           const profpack_read_options* options, profpack_profile** out) {
  if (files.size() == 1) return profpack_read_file(files[0].c_str(), options, out);
  std::vector<const char*> paths;
  for (const std::string& f : files) paths.push_back(f.c_str());
  return profpack_read_files(paths.data(), paths.size(), options, out);
}

profpack_status view(Profile& p, const std::string& binary, long thread, const Args& args) {
  profpack_view_options o;
  profpack_view_options_init(&o);
  if (!binary.empty()) o.binary = binary.c_str();
  if (thread >= 0) o.thread = static_cast<size_t>(thread);
  std::vector<const char*> tags;
  for (const auto& [name, value] : args.repeated)
    if (name == "--tag") tags.push_back(value.c_str());
  o.tags = tags.data();
  o.tag_count = tags.size();
  profpack_profile* v = nullptr;
  const profpack_status s = profpack_profile_view(p.p, &o, &v);
  if (s == PROFPACK_OK) {
    profpack_profile_free(p.p);
    p.p = v;
  }
  return s;
}

bool wantsView(const Args& args) {
  return args.has("--binary") || args.has("--thread") || args.has("--tag");
}

// --to where given; else the format OUT's name says (".pb.gz", ".ppk", "callgrind.out.1", ...:
// profpack_format_for_path); else `otherwise`. A --to that the name contradicts is written as
// asked, with a warning.
profpack_format outputFormat(Invocation& s, const Args& args, const std::string& out,
                             profpack_format otherwise) {
  const profpack_format named = profpack_format_for_path(out.c_str());
  if (!args.has("--to")) return named != PROFPACK_FORMAT_UNKNOWN ? named : otherwise;
  const std::string to = args.get("--to");
  const profpack_format fmt = profpack_format_from_name(to.c_str());
  if (fmt == PROFPACK_FORMAT_UNKNOWN) {
    usageError(s, "unknown format '" + to + "'");
    return fmt;
  }
  if (named != PROFPACK_FORMAT_UNKNOWN && named != fmt)
    std::fprintf(stderr,
                 "profpack: %s: warning: written as %s, as --to asks, under a name that says %s\n",
                 out.c_str(), profpack_format_name(fmt), profpack_format_name(named));
  return fmt;
}

int writeOptions(Invocation& s, const Args& args, profpack_write_options& wo) {
  profpack_write_options_init(&wo);
  for (size_t i = 0; i < profpack_write_param_count(); ++i) {
    profpack_write_param_info info;
    profpack_write_param_info_init(&info);
    if (profpack_write_param_describe(i, &info) != PROFPACK_OK) return failWith(s, "write");
    const std::string option = std::string("--") + info.name;
    auto it = args.options.find(option);
    if (it == args.options.end()) continue;
    // The string is borrowed: `args` outlives the write.
    if (profpack_write_options_set_text(&wo, info.name, it->second.c_str()) != PROFPACK_OK)
      return usageError(s, option + " is " + info.values);
  }
  return 0;
}

int writeOutput(Invocation& s, const Args& args, profpack_profile* p, profpack_format format,
                const std::string& out) {
  profpack_write_options wo;
  if (int rc = writeOptions(s, args, wo)) return rc;
  if (profpack_write_file(p, format, out.c_str(), &wo) != PROFPACK_OK)
    return failWith(s, out.c_str());
  return 0;
}

}  // namespace cli
