// `profpack archive`: many profiles in one .ppka file (docs/formats.md), through the C API.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "profpack/profpack.h"

namespace {

const char kArchiveUsage[] =
    "usage: profpack archive add ARCHIVE FILE... [--label k=v]... [--time T] [--symbolize]\n"
    "       profpack archive list ARCHIVE [--where k=v]... [--since T] [--until T] [--json]\n"
    "       profpack archive extract ARCHIVE ID -o OUT\n"
    "       profpack archive merge ARCHIVE [--where k=v]... [--since T] [--until T] -o OUT\n"
    "                              [--to FORMAT]\n"
    "       profpack archive diff ARCHIVE --base SELECTION --new SELECTION -o OUT [--to FORMAT]\n"
    "       profpack archive trend ARCHIVE FUNCTION [--event E] [SELECTION] [--json]\n"
    "       profpack archive verify ARCHIVE\n"
    "       profpack archive compact ARCHIVE\n"
    "SELECTION is [--where k=v]... [--since T] [--until T] (all members where empty).\n"
    "T is seconds since 1970 UTC; ID a member's id (from list). A member's time is the one its\n"
    "profile records (pprof's time_nanos), else --time, else the file's mtime.\n";

int fail(const char* what) {
  const profpack_error* e = profpack_last_error();
  std::fprintf(stderr, "profpack archive %s: %s\n", what, e->message);
  return 1;
}
int usage(const std::string& why) {
  std::fprintf(stderr, "profpack archive: %s\n%s", why.c_str(), kArchiveUsage);
  return 2;
}

struct Archive {
  profpack_archive* a = nullptr;
  ~Archive() { profpack_archive_close(a); }
};
struct Profile {
  profpack_profile* p = nullptr;
  ~Profile() { profpack_profile_free(p); }
};

struct Selection {
  std::vector<std::pair<std::string, std::string>> where;
  int64_t since = INT64_MIN, until = INT64_MAX;
};

bool parseTime(const std::string& s, int64_t& out) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end) return false;
  out = v;
  return true;
}

// Takes the selection options out of `args`; false (after a message) on a bad one.
bool parseSelection(std::vector<std::string>& args, Selection& sel) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--where" || a == "--since" || a == "--until") {
      if (i + 1 >= args.size()) return usage(a + " needs a value"), false;
      const std::string& v = args[++i];
      if (a == "--where") {
        auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0) return usage(v + " is not key=value"), false;
        sel.where.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      } else if (!parseTime(v, a == "--since" ? sel.since : sel.until)) {
        return usage(a + " " + v + " is not a number of seconds"), false;
      }
    } else {
      rest.push_back(a);
    }
  }
  args = rest;
  return true;
}

bool matches(const profpack_archive* a, size_t i, const Selection& sel) {
  profpack_archive_member m{};
  m.struct_size = sizeof m;
  if (profpack_archive_member_info(a, i, &m) != PROFPACK_OK) return false;
  if (m.time < sel.since || m.time > sel.until) return false;
  for (const auto& [k, v] : sel.where) {
    bool found = false;
    for (size_t l = 0; l < m.label_count && !found; ++l) {
      const char *key = nullptr, *value = nullptr;
      profpack_archive_member_label(a, i, l, &key, &value);
      found = k == key && v == value;
    }
    if (!found) return false;
  }
  return true;
}

int openArchive(const std::string& path, bool writable, Archive& a, const char* what) {
  profpack_archive_options o;
  profpack_archive_options_init(&o);
  o.writable = writable;
  return profpack_archive_open(path.c_str(), &o, &a.a) == PROFPACK_OK ? 0 : fail(what);
}

std::string jsonString(const char* s) {
  std::string out = "\"";
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

int cmdAdd(std::vector<std::string> args) {
  std::vector<std::string> labels, files;
  int64_t time = 0;  // the profile's own time, else --time, else the file's
  profpack_read_options ro;
  profpack_read_options_init(&ro);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--symbolize") {
      // Names from the binaries kept with each member: they outlive the binaries.
      ro.flags |= PROFPACK_READ_SYMBOLIZE;
    } else if (args[i] == "--label" || args[i] == "--time") {
      if (i + 1 >= args.size()) return usage(args[i] + " needs a value");
      if (args[i] == "--label")
        labels.push_back(args[++i]);
      else if (!parseTime(args[++i], time))
        return usage("--time " + args[i] + " is not a number");
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.size() < 2) return usage("add needs an archive and at least one file");
  std::vector<Profile> profiles(files.size() - 1);
  std::vector<const profpack_profile*> ptrs;
  for (size_t i = 1; i < files.size(); ++i) {
    if (profpack_read_file(files[i].c_str(), &ro, &profiles[i - 1].p) != PROFPACK_OK)
      return fail("add");
    ptrs.push_back(profiles[i - 1].p);
  }
  std::vector<const char*> l;
  for (const auto& s : labels) l.push_back(s.c_str());
  Archive a;
  if (int rc = openArchive(files[0], true, a, "add")) return rc;
  if (profpack_archive_add(a.a, ptrs.data(), ptrs.size(), l.data(), l.size(), time) != PROFPACK_OK)
    return fail("add");
  return 0;
}

int cmdList(std::vector<std::string> args) {
  Selection sel;
  if (!parseSelection(args, sel)) return 2;
  bool json = false;
  std::vector<std::string> rest;
  for (const auto& a : args) (a == "--json" ? json = true : (rest.push_back(a), false));
  if (rest.size() != 1) return usage("list needs one archive");
  Archive a;
  if (int rc = openArchive(rest[0], false, a, "list")) return rc;
  size_t n = 0;
  profpack_archive_count(a.a, &n);
  if (json) std::printf("[");
  bool first = true;
  for (size_t i = 0; i < n; ++i) {
    if (!matches(a.a, i, sel)) continue;
    profpack_archive_member m{};
    m.struct_size = sizeof m;
    profpack_archive_member_info(a.a, i, &m);
    std::string labels;
    for (size_t l = 0; l < m.label_count; ++l) {
      const char *k = nullptr, *v = nullptr;
      profpack_archive_member_label(a.a, i, l, &k, &v);
      if (json)
        labels += (l ? ", " : "") + jsonString(k) + ": " + jsonString(v);
      else
        labels += (l ? " " : "") + std::string(k) + "=" + v;
    }
    if (json)
      std::printf("%s\n  {\"id\": %" PRIu64 ", \"format\": %s, \"time\": %" PRId64
                  ", \"stored_bytes\": %" PRIu64 ", \"ir_bytes\": %" PRIu64 ", \"labels\": {%s}}",
                  first ? "" : ",", m.id, jsonString(m.format).c_str(), m.time, m.stored_bytes,
                  m.ir_bytes, labels.c_str());
    else
      std::printf("%" PRIu64 "\t%s\t%" PRId64 "\t%" PRIu64 "\t%s\n", m.id, m.format, m.time,
                  m.stored_bytes, labels.c_str());
    first = false;
  }
  if (json) std::printf("%s]\n", first ? "" : "\n");
  return 0;
}

// The value of `-o` (and `--to`), taken out of `args`.
bool takeOption(std::vector<std::string>& args, const std::string& name, std::string& out) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == name) {
      out = args[i + 1];
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
      return true;
    }
  return false;
}

int cmdExtract(std::vector<std::string> args) {
  std::string out;
  if (!takeOption(args, "-o", out) || args.size() != 2) return usage("extract ARCHIVE ID -o OUT");
  int64_t id = 0;
  if (!parseTime(args[1], id)) return usage(args[1] + " is not a member id");
  Archive a;
  if (int rc = openArchive(args[0], false, a, "extract")) return rc;
  size_t n = 0;
  profpack_archive_count(a.a, &n);
  for (size_t i = 0; i < n; ++i) {
    profpack_archive_member m{};
    m.struct_size = sizeof m;
    profpack_archive_member_info(a.a, i, &m);
    if (m.id != static_cast<uint64_t>(id)) continue;
    Profile p;
    if (profpack_archive_read(a.a, i, &p.p) != PROFPACK_OK) return fail("extract");
    profpack_format f = profpack_format_for_path(out.c_str());
    if (f == PROFPACK_FORMAT_UNKNOWN) f = profpack_profile_format(p.p);
    if (profpack_write_file(p.p, f, out.c_str(), nullptr) != PROFPACK_OK) return fail("extract");
    return 0;
  }
  std::fprintf(stderr, "profpack archive extract: no member %s in %s\n", args[1].c_str(),
               args[0].c_str());
  return 1;
}

// The indices of the members `sel` selects.
std::vector<size_t> selected(const profpack_archive* a, const Selection& sel) {
  size_t n = 0;
  profpack_archive_count(a, &n);
  std::vector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    if (matches(a, i, sel)) out.push_back(i);
  return out;
}

// Writes `p` to `out` as `to`, else as the name says, else as .ppk.
int writeOut(const profpack_profile* p, const std::string& out, const std::string& to,
             const char* what) {
  profpack_format f =
      to.empty() ? profpack_format_for_path(out.c_str()) : profpack_format_from_name(to.c_str());
  if (f == PROFPACK_FORMAT_UNKNOWN) f = PROFPACK_FORMAT_PPK;
  return profpack_write_file(p, f, out.c_str(), nullptr) == PROFPACK_OK ? 0 : fail(what);
}

int cmdMerge(std::vector<std::string> args) {
  Selection sel;
  if (!parseSelection(args, sel)) return 2;
  std::string out, to;
  if (!takeOption(args, "-o", out) || args.size() > 3) return usage("merge ARCHIVE -o OUT");
  takeOption(args, "--to", to);
  if (args.size() != 1) return usage("merge needs one archive");
  Archive a;
  if (int rc = openArchive(args[0], false, a, "merge")) return rc;
  std::vector<size_t> picked = selected(a.a, sel);
  if (picked.empty()) {
    std::fprintf(stderr, "profpack archive merge: no member matches\n");
    return 1;
  }
  Profile merged;
  if (profpack_archive_merge(a.a, picked.data(), picked.size(), &merged.p) != PROFPACK_OK)
    return fail("merge");
  return writeOut(merged.p, out, to, "merge");
}

int cmdDiff(std::vector<std::string> args) {
  std::string out, to;
  if (!takeOption(args, "-o", out)) return usage("diff needs -o OUT");
  takeOption(args, "--to", to);
  // ARCHIVE --base SELECTION --new SELECTION, in either order.
  std::vector<std::string> head, part[2];
  std::vector<std::string>* into = &head;
  bool seen[2] = {false, false};
  for (const auto& x : args) {
    if (x == "--base" || x == "--new") {
      int k = x == "--new";
      seen[k] = true;
      into = &part[k];
    } else {
      into->push_back(x);
    }
  }
  if (head.size() != 1 || !seen[0] || !seen[1])
    return usage("diff ARCHIVE --base SELECTION --new SELECTION -o OUT");
  Selection sel[2];
  for (int k = 0; k < 2; ++k) {
    if (!parseSelection(part[k], sel[k])) return 2;
    if (!part[k].empty()) return usage("unexpected '" + part[k][0] + "' in a selection");
  }
  Archive a;
  if (int rc = openArchive(head[0], false, a, "diff")) return rc;
  std::vector<size_t> base = selected(a.a, sel[0]), current = selected(a.a, sel[1]);
  if (base.empty() || current.empty()) {
    std::fprintf(stderr, "profpack archive diff: no member matches the %s selection\n",
                 base.empty() ? "--base" : "--new");
    return 1;
  }
  profpack_diff_options o;
  profpack_diff_options_init(&o);
  o.base_name = "base";
  o.current_name = "new";
  Profile d;
  if (profpack_archive_diff(a.a, base.data(), base.size(), current.data(), current.size(), &o,
                            &d.p) != PROFPACK_OK)
    return fail("diff");
  return writeOut(d.p, out, to, "diff");
}

std::string labelText(const profpack_archive* a, size_t i, size_t count, bool json) {
  std::string labels;
  for (size_t l = 0; l < count; ++l) {
    const char *k = nullptr, *v = nullptr;
    profpack_archive_member_label(a, i, l, &k, &v);
    if (json)
      labels += (l ? ", " : "") + jsonString(k) + ": " + jsonString(v);
    else
      labels += (l ? " " : "") + std::string(k) + "=" + v;
  }
  return labels;
}

int cmdTrend(std::vector<std::string> args) {
  Selection sel;
  if (!parseSelection(args, sel)) return 2;
  std::string event;
  bool hasEvent = takeOption(args, "--event", event), json = false;
  std::vector<std::string> rest;
  for (const auto& x : args) (x == "--json" ? json = true : (rest.push_back(x), false));
  if (rest.size() != 2) return usage("trend ARCHIVE FUNCTION");
  Archive a;
  if (int rc = openArchive(rest[0], false, a, "trend")) return rc;
  if (json) std::printf("[");
  bool first = true;
  for (size_t i : selected(a.a, sel)) {
    profpack_archive_member m{};
    m.struct_size = sizeof m;
    profpack_archive_member_info(a.a, i, &m);
    uint64_t self = 0, incl = 0;
    size_t matched = 0;
    if (profpack_archive_function_cost(a.a, i, rest[1].c_str(), hasEvent ? event.c_str() : nullptr,
                                       &self, &incl, &matched) != PROFPACK_OK)
      return fail("trend");
    const std::string labels = labelText(a.a, i, m.label_count, json);
    if (json)
      std::printf("%s\n  {\"id\": %" PRIu64 ", \"time\": %" PRId64
                  ", \"labels\": {%s}, "
                  "\"functions\": %zu, \"self\": %" PRIu64 ", \"inclusive\": %" PRIu64 "}",
                  first ? "" : ",", m.id, m.time, labels.c_str(), matched, self, incl);
    else
      std::printf("%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", m.id, m.time, self,
                  incl, labels.c_str());
    first = false;
  }
  if (json) std::printf("%s]\n", first ? "" : "\n");
  return 0;
}

int cmdVerify(const std::vector<std::string>& args) {
  if (args.size() != 1) return usage("verify needs one archive");
  Archive a;
  if (int rc = openArchive(args[0], false, a, "verify")) return rc;
  size_t checked = 0;
  if (profpack_archive_verify(a.a, &checked) != PROFPACK_OK) return fail("verify");
  std::printf("%s: %zu members, all readable\n", args[0].c_str(), checked);
  return 0;
}

int cmdCompact(const std::vector<std::string>& args) {
  if (args.size() != 1) return usage("compact needs one archive");
  Archive a;
  if (int rc = openArchive(args[0], true, a, "compact")) return rc;
  return profpack_archive_compact(a.a) == PROFPACK_OK ? 0 : fail("compact");
}

}  // namespace

int cmdArchive(const std::vector<std::string>& args) {
  if (args.empty()) return usage("a subcommand is needed");
  std::vector<std::string> rest(args.begin() + 1, args.end());
  const std::string& sub = args[0];
  if (sub == "add") return cmdAdd(rest);
  if (sub == "list") return cmdList(rest);
  if (sub == "extract") return cmdExtract(rest);
  if (sub == "merge") return cmdMerge(rest);
  if (sub == "diff") return cmdDiff(rest);
  if (sub == "trend") return cmdTrend(rest);
  if (sub == "verify") return cmdVerify(rest);
  if (sub == "compact") return cmdCompact(rest);
  return usage("unknown subcommand '" + sub + "'");
}
