// profpack: the command-line front end. It uses only the public C API.

#include <profpack/profpack.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char* kUsage =
    "usage: profpack <command> [options]\n"
    "\n"
    "commands:\n"
    "  convert IN -o OUT [--to FORMAT] [--level N]\n"
    "      Convert a profile. The input format is detected from the content. FORMAT is one of\n"
    "      ppk (default), callgrind, cachegrind, gperftools, xray, dcpi. --level sets the zstd\n"
    "      level (1-22, default 6) of .ppk output. '-' means standard input / output.\n"
    "  info FILE\n"
    "      Print format and version, parts, events with totals, and counts of functions,\n"
    "      files and objects.\n"
    "  --version, --help\n";

int failWith(const char* context) {
  const profpack_error* e = profpack_last_error();
  std::fprintf(stderr, "profpack: %s%s%s\n", context, *context ? ": " : "", e->message);
  return 1;
}

int usageError(const std::string& msg) {
  std::fprintf(stderr, "profpack: %s (see profpack --help)\n", msg.c_str());
  return 2;
}

struct Profile {
  profpack_profile* p = nullptr;
  ~Profile() { profpack_profile_free(p); }
};

int cmdConvert(const std::vector<std::string>& args) {
  std::string in, out, to = "ppk";
  int level = 6;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> const std::string* {
      if (i + 1 >= args.size()) return nullptr;
      (void)name;
      return &args[++i];
    };
    if (a == "-o" || a == "--output") {
      const std::string* v = value("-o");
      if (!v) return usageError("-o needs a file name");
      out = *v;
    } else if (a == "--to") {
      const std::string* v = value("--to");
      if (!v) return usageError("--to needs a format name");
      to = *v;
    } else if (a == "--level") {
      const std::string* v = value("--level");
      if (!v) return usageError("--level needs a number");
      char* end = nullptr;
      long l = std::strtol(v->c_str(), &end, 10);
      if (*end || l < 1 || l > 22) return usageError("--level must be a number from 1 to 22");
      level = static_cast<int>(l);
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '" + a + "' for convert");
    } else if (in.empty()) {
      in = a;
    } else {
      return usageError("convert takes one input file");
    }
  }
  if (in.empty()) return usageError("convert needs an input file");
  if (out.empty()) return usageError("convert needs -o OUT");
  profpack_format fmt = profpack_format_from_name(to.c_str());
  if (fmt == PROFPACK_FORMAT_UNKNOWN) return usageError("unknown format '" + to + "'");
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  Profile p;
  if (profpack_read_file(in.c_str(), &ro, &p.p) != PROFPACK_OK) return failWith(in.c_str());
  for (size_t i = 0; i < profpack_profile_warning_count(p.p); ++i)
    std::fprintf(stderr, "profpack: %s: warning: %s\n", in.c_str(),
                 profpack_profile_warning(p.p, i));
  profpack_write_options wo;
  profpack_write_options_init(&wo);
  wo.ppk_level = level;
  if (profpack_write_file(p.p, fmt, out.c_str(), &wo) != PROFPACK_OK) return failWith(out.c_str());
  return 0;
}

int cmdInfo(const std::vector<std::string>& args) {
  if (args.size() != 1) return usageError("info takes one file");
  Profile p;
  if (profpack_read_file(args[0].c_str(), nullptr, &p.p) != PROFPACK_OK)
    return failWith(args[0].c_str());
  profpack_info info;
  info.struct_size = sizeof info;
  if (profpack_profile_info(p.p, &info) != PROFPACK_OK) return failWith(args[0].c_str());
  std::printf("format: %s", profpack_format_name(info.format));
  if (*info.format_version) std::printf(" (version %s)", info.format_version);
  std::printf("\nparts: %llu\nrecords: %llu\nfunctions: %llu\nfiles: %llu\nobjects: %llu\n",
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
    std::printf("  %-10s %20llu", e.name, (unsigned long long)e.total);
    if (*e.long_name) std::printf("  %s", e.long_name);
    std::printf("\n");
  }
  for (size_t i = 0; i < profpack_profile_warning_count(p.p); ++i)
    std::printf("warning: %s\n", profpack_profile_warning(p.p, i));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
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
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  if (cmd == "convert") return cmdConvert(args);
  if (cmd == "info") return cmdInfo(args);
  return usageError("unknown command '" + cmd + "'");
}
