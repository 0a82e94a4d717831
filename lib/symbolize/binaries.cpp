#include "symbolize/binaries.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <utility>

#include "symbolize/debugfile.h"
#include "util/text.h"

namespace profpack {

namespace {

std::string baseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> searchPath(const SymbolizeOptions& options) {
  std::vector<std::string> dirs = options.binaryPath;
  if (const char* env = std::getenv("PROFPACK_BINARY_PATH")) {
    std::string_view s(env);
    while (!s.empty()) {
      size_t colon = s.find(':');
      std::string_view d = s.substr(0, colon);
      if (!d.empty()) dirs.emplace_back(d);
      if (colon == std::string_view::npos) break;
      s.remove_prefix(colon + 1);
    }
  }
  return dirs;
}

// A build id for messages: its hex digits, "none" where there is none.
std::string idText(const std::string& bytes) { return bytes.empty() ? "none" : hexBytes(bytes); }

// perf's build-id cache ($HOME/.debug), "" where HOME is not set.
std::string perfCache() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.debug" : std::string();
}

// find()'s walk over a mapping's candidate files (ElfResolver::candidates(), the first `byId`
// by build id): a build-id path that is not there is skipped, each other is opened with
// `open(path, reason)` (null, with the reason, where it cannot be), and the first that can be
// the mapping's binary is returned, its path in `used`. `notTaken(path, reason, opened)` hears
// each other candidate tried: why it could not be opened, or (opened) why it is not the binary.
// `stop`, where given, ends the walk early.
template <class Open, class NotTaken>
ElfBinary* firstFit(const Mapping& mapping, const std::vector<std::string>& candidates, size_t byId,
                    int64_t profileTime, Open open, NotTaken notTaken, std::string* used,
                    const std::atomic<bool>* stop = nullptr) {
  for (size_t k = 0; k < candidates.size() && !(stop && *stop); ++k) {
    const std::string& c = candidates[k];
    // A build-id path that is not there is no news: most binaries are in no cache.
    if (k < byId && ::access(c.c_str(), F_OK) != 0) continue;
    std::string reason;
    ElfBinary* bin = open(c, reason);
    if (bin) {
      // The time tells a rebuild in place; a file copied into a directory the user names has
      // the time of the copy.
      const bool recorded = k + 1 == candidates.size() && c == mapping.path;
      reason = mismatch(mapping, *bin, recorded ? profileTime : 0);
      if (reason.empty()) {
        if (used) *used = c;
        return bin;
      }
    }
    notTaken(c, reason, bin != nullptr);
  }
  return nullptr;
}

}  // namespace

std::string mismatch(const Mapping& mapping, const ElfBinary& binary, int64_t profileTime) {
  if (!mapping.buildId.empty()) {
    if (binary.buildId() == mapping.buildId) return "";
    return "its build id is " + idText(binary.buildId()) + ", the profile's " +
           idText(mapping.buildId);
  }
  std::string why = binary.misfit(mapping.start, mapping.limit, mapping.offset, mapping.linkTime);
  if (!why.empty()) return why;
  if (profileTime > 0 && binary.modified() > profileTime)
    return "modified after the profile was written (another build?)";
  return "";
}

ElfResolver::ElfResolver(const SymbolizeOptions& options, std::vector<uint64_t> entries)
    : options_(options), dirs_(searchPath(options)), entries_(std::move(entries)) {}

ElfResolver::~ElfResolver() {
  // A resolver given up before naming (the read failed, nothing to name): the binaries not yet
  // opened ahead are not waited for (ahead_'s destruction waits for the one being opened).
  if (stopAhead_) *stopAhead_ = true;
}

void ElfResolver::openAhead(const std::vector<Mapping>& mappings) {
  // At most this many files: a recording's samples are rarely in more, and a list that names
  // more (a hostile one: every library on the system) opens the rest as before, only those
  // that samples are in, when they are needed.
  constexpr size_t kMaxAhead = 64;
  std::vector<Mapping> files;
  for (const Mapping& m : mappings) {
    if (m.functionIds) continue;
    if (isKernelMapping(m.path))
      prefetch(m);
    // Only by build id: without one, whether a file is the mapping's binary depends on the
    // mapping's place and size, which a list ahead of the samples does not give.
    else if (!m.path.empty() && m.path[0] != '[' && !m.buildId.empty() && files.size() < kMaxAhead)
      files.push_back(m);
  }
  if (files.empty()) return;
  // What find() will do for each, but for its warnings: the files opened are handed over
  // whole, and find() then takes them where it would have opened them.
  std::vector<std::vector<std::string>> tries;
  std::vector<size_t> byIds;
  for (const Mapping& m : files) {
    size_t byId = 0;
    tries.push_back(candidates(m, byId));
    byIds.push_back(byId);
  }
  const int64_t profileTime = options_.profileTime;
  const bool dwarf = !options_.symbolTablesOnly, lines = !options_.noLines,
             parameters = !options_.namesWithoutParameters;
  stopAhead_ = std::make_shared<std::atomic<bool>>(false);
  try {
    ahead_ = std::async(std::launch::async, [files = std::move(files), tries = std::move(tries),
                                             byIds = std::move(byIds), profileTime, dwarf, lines,
                                             parameters, stop = stopAhead_] {
      std::vector<std::pair<std::string, Entry>> opened;
      auto open = [&](const std::string& c, std::string& reason) {
        auto known =
            std::find_if(opened.begin(), opened.end(), [&](const auto& o) { return o.first == c; });
        if (known == opened.end()) {
          std::string why;
          auto b = ElfBinary::open(c, why, dwarf, lines, parameters);
          opened.emplace_back(c, Entry{std::move(b), std::move(why)});
          known = opened.end() - 1;
        }
        reason = known->second.why;
        return known->second.binary.get();
      };
      std::vector<ElfBinary*> taken;
      for (size_t i = 0; i < files.size() && !*stop; ++i)
        if (ElfBinary* b = firstFit(
                files[i], tries[i], byIds[i], profileTime, open,
                [](const std::string&, const std::string&, bool) {}, nullptr, stop.get()))
          taken.push_back(b);
      // Their symbol indexes too, which the first lookup in each would otherwise make on the
      // naming thread (the recording lists only binaries its samples are in).
      for (ElfBinary* b : taken)
        if (!*stop) b->indexSymbols();
      return opened;
    });
  } catch (const std::system_error&) {
    // No thread to be had: open() opens each binary when it comes to it.
  }
}

void ElfResolver::adoptAhead() {
  if (!ahead_.valid()) return;
  for (auto& [path, entry] : ahead_.get()) {
    const bool binary = entry.binary != nullptr;
    if (open_.try_emplace(path, std::move(entry)).second && binary) ++openedAhead_;
  }
}

ElfBinary* ElfResolver::get(const std::string& path, std::string& why) {
  adoptAhead();
  auto it = open_.find(path);
  if (it == open_.end()) {
    std::string reason;
    auto b = ElfBinary::open(path, reason, !options_.symbolTablesOnly, !options_.noLines,
                             !options_.namesWithoutParameters);
    it = open_.emplace(path, Entry{std::move(b), std::move(reason)}).first;
  }
  why = it->second.why;
  return it->second.binary.get();
}

std::vector<std::string> ElfResolver::candidates(const Mapping& mapping, size_t& byId) const {
  std::vector<std::string> candidates;
  if (!mapping.buildId.empty()) {
    // perf's build-id cache keeps a binary as .build-id/xx/rest/elf, and the vdso it saw as
    // .../vdso (a --binary-path may be such a cache too).
    const bool vdso = mapping.path == "[vdso]";
    for (const std::string& d : dirs_) {
      candidates.push_back(buildIdPath(d, mapping.buildId));
      candidates.push_back(buildIdPath(d, mapping.buildId) + ".debug");
      candidates.push_back(buildIdPath(d, mapping.buildId) + (vdso ? "/vdso" : "/elf"));
    }
    if (const std::string cache = perfCache(); !cache.empty())
      candidates.push_back(buildIdPath(cache, mapping.buildId) + (vdso ? "/vdso" : "/elf"));
    candidates.push_back(buildIdPath("/usr/lib/debug", mapping.buildId) + ".debug");
  }
  byId = candidates.size();
  for (const std::string& d : dirs_) {
    candidates.push_back(d + "/" + baseName(mapping.path));
    if (mapping.path[0] == '/' && mapping.path.find('/', 1) != std::string::npos)
      candidates.push_back(d + mapping.path);
  }
  if (mapping.path[0] == '/') candidates.push_back(mapping.path);
  return candidates;
}

ElfBinary* ElfResolver::find(const Mapping& mapping, std::string& used, std::string& why) {
  // A mapping with a build id is the file with that id whatever its place: a library mapped
  // in many processes (hundreds in a recording of a build) is looked for once.
  std::string key;
  if (!mapping.buildId.empty()) {
    key = mapping.path + '\0' + mapping.buildId;
    if (auto it = foundById_.find(key); it != foundById_.end()) {
      used = it->second.used;
      why = it->second.why;
      return it->second.binary;
    }
  }
  ElfBinary* bin = search(mapping, used, why);
  if (!key.empty()) foundById_[key] = {bin, used, why};
  return bin;
}

ElfBinary* ElfResolver::search(const Mapping& mapping, std::string& used, std::string& why) {
  size_t byId = 0;
  const std::vector<std::string> candidates = this->candidates(mapping, byId);
  if (candidates.size() == byId) why = "a relative path, and no --binary-path directory holds it";
  return firstFit(
      mapping, candidates, byId, options_.profileTime,
      [&](const std::string& c, std::string& reason) { return get(c, reason); },
      [&](const std::string& c, std::string reason, bool opened) {
        if (opened) {
          if (!warned_[c + '\0' + reason]) {
            warned_[c + '\0' + reason] = true;
            skipped_.push_back(c + ": not the binary of " + mapping.path + ": " + reason);
          }
          reason = "not the binary that ran: " + reason;
        }
        why += (why.empty() ? "" : "; ") + c + ": " + reason;
      },
      &used);
}

bool ElfResolver::kernelTable(const Mapping& mapping, std::string& used, std::string& buildId,
                              std::string& why) {
  used = options_.kallsyms.empty() ? "/proc/kallsyms" : options_.kallsyms;
  // perf record copies the kernel's table into its build-id cache (and `perf archive` packs
  // it with the binaries): found by the recorded build id, it is that kernel's, running or
  // not, and a file reads in a fraction of the time /proc/kallsyms takes to print.
  std::string cached;
  if (options_.kallsyms.empty() && !mapping.buildId.empty()) {
    std::vector<std::string> roots = dirs_;
    if (const std::string cache = perfCache(); !cache.empty()) roots.push_back(cache);
    for (const std::string& d : roots) {
      const std::string c = buildIdPath(d, mapping.buildId) + "/kallsyms";
      if (::access(c.c_str(), R_OK) == 0) {
        cached = c;
        break;
      }
    }
  }
  if (!cached.empty()) {
    used = cached;
    buildId = mapping.buildId;
  } else if (options_.kallsyms.empty()) {  // the running kernel's, if it is the one recorded
    const std::string running = runningKernelBuildId(), release = runningKernelRelease();
    if (!mapping.buildId.empty() && mapping.buildId != running) {
      why = "/proc/kallsyms is not the recorded kernel's: its build id is " + idText(running) +
            ", the recording's " + idText(mapping.buildId) + " (--kallsyms names a copy)";
      return false;
    }
    if (mapping.buildId.empty() && (release_.empty() || release_ != release)) {
      why =
          "the recording names no kernel build id" +
          (release_.empty() ? std::string(" or release")
                            : ", and its release " + release_ + " is not the running " + release) +
          ": /proc/kallsyms not taken (--kallsyms names the recorded kernel's)";
      return false;
    }
    buildId = mapping.buildId.empty() ? running : mapping.buildId;
  }
  return true;
}

const Kallsyms* ElfResolver::kernel(const Mapping& mapping, std::string& used, std::string& buildId,
                                    std::string& why) {
  if (!kernelTable(mapping, used, buildId, why)) return nullptr;
  if (!kallsymsRead_) {
    kallsymsRead_ = true;
    if (kallsymsLoad_.valid() && kallsymsLoadPath_ == used) {
      auto [table, loadWhy] = kallsymsLoad_.get();
      kallsyms_ = std::move(table);
      kallsymsWhy_ = std::move(loadWhy);
    } else {
      kallsyms_ = Kallsyms::load(used, kallsymsWhy_);
    }
  }
  why = kallsymsWhy_;
  return kallsyms_.get();
}

void ElfResolver::prefetch(const Mapping& mapping) {
  if (kallsymsRead_ || kallsymsLoad_.valid() || mapping.functionIds ||
      !isKernelMapping(mapping.path))
    return;
  std::string used, buildId, why;
  if (!kernelTable(mapping, used, buildId, why)) return;
  try {
    kallsymsLoad_ = std::async(std::launch::async, [used] {
      std::string loadWhy;
      std::unique_ptr<Kallsyms> table = Kallsyms::load(used, loadWhy);
      return std::make_pair(std::move(table), std::move(loadWhy));
    });
    kallsymsLoadPath_ = used;
  } catch (const std::system_error&) {
    // No thread to be had (a process limit, a sandbox): kernel() reads the table itself.
  }
}

bool ElfResolver::open(const Mapping& mapping, std::string& used, std::string& buildId,
                       std::string& why) {
  bin_ = nullptr;
  kernel_ = nullptr;
  jit_ = nullptr;
  bias_ = 0;
  ElfBinary* bin = nullptr;
  if (!mapping.functionIds && isKernelMapping(mapping.path)) {
    kernel_ = kernel(mapping, used, buildId, why);
    return kernel_ != nullptr;
  }
  if (!mapping.functionIds && mapping.pid >= 0 && isJitMapping(mapping.path)) {
    jit_ = perfMap(mapping, used, why);
    return jit_ != nullptr;
  }
  if (mapping.functionIds) {
    std::string reason;
    bin = get(options_.binary, reason);
    used = options_.binary;
    if (!bin) why = options_.binary + ": " + reason;
  } else if (mapping.path.empty() ||
             (mapping.path[0] == '[' && (mapping.path != "[vdso]" || mapping.buildId.empty()))) {
    why = "names no file";  // but the vdso, whose copy perf keeps by its build id
  } else {
    bin = find(mapping, used, why);
  }
  if (bin && !mapping.linkTime && !bin->loadBias(mapping.start, mapping.offset, bias_)) {
    why = used + ": no loadable segment holds file offset " + hexString(mapping.offset);
    bin = nullptr;
  }
  if (!bin) return false;
  buildId = bin->buildId();
  bin_ = bin;
  return true;
}

const std::vector<SymbolFrame>* ElfResolver::frames(const Mapping& mapping, uint64_t address,
                                                    bool returnAddress) {
  if (mapping.functionIds) {
    if (returnAddress || address >= entries_.size() || entries_[address] == 0) return nullptr;
    return &bin_->lookupEntry(entries_[address]);
  }
  if (kernel_) return returnAddress ? kernel_->lookupCaller(address) : kernel_->lookup(address);
  if (jit_) return jit_->lookup(address - (returnAddress ? 1 : 0));
  return &bin_->lookup(address - bias_ - (returnAddress ? 1 : 0));
}

// perf-PID.map in a --binary-path directory (a copy kept with the recording), else in /tmp,
// where the JIT wrote it; read once per process.
const PerfMap* ElfResolver::perfMap(const Mapping& mapping, std::string& used, std::string& why) {
  const std::string name = "perf-" + std::to_string(mapping.pid) + ".map";
  auto [it, fresh] = perfMaps_.try_emplace(mapping.pid);
  if (fresh) {
    std::vector<std::string> tried;
    for (const std::string& d : dirs_) tried.push_back(d + "/" + name);
    tried.push_back("/tmp/" + name);
    std::string reasons;
    for (const std::string& path : tried) {
      std::string reason;
      if ((it->second.first = PerfMap::load(path, reason))) {
        it->second.second = path;
        break;
      }
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    if (!it->second.first) it->second.second = "a JIT's code, and no " + name + ": " + reasons;
  }
  if (!it->second.first) {
    why = it->second.second;
    return nullptr;
  }
  used = it->second.second;
  return it->second.first.get();
}

}  // namespace profpack
