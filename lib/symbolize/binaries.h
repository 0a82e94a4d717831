// Finding the ELF binary of a mapping: where to look, and whether a file found there is the one
// the profile was taken of.
#pragma once

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolize/kernel.h"
#include "symbolize/perfmap.h"
#include "symbolize/symbolize.h"
#include "symbolize/writer.h"

namespace profpack {

// Names from ELF binaries. A mapping's binary is looked for as DIR/<base name> and
// DIR/<recorded path> for each directory of options.binaryPath, then of PROFPACK_BINARY_PATH,
// then at the path the mapping records (as go tool pprof looks: a directory the user names
// comes before the recorded path). A mapping with a build id is looked for by it first: under
// each directory's .build-id/, in perf's build-id cache ($HOME/.debug/.build-id/xx/rest/elf, as
// `perf buildid-cache -a` keeps binaries) and in /usr/lib/debug/.build-id/xx/rest.debug. The
// kernel's mapping takes options.kallsyms, else /proc/kallsyms where it is the recorded kernel. A
// file found is taken only if it can be the one the profile was taken of (mismatch(), with the
// profile's time at the recorded path only: a file copied into a directory has the time of the
// copy); the others are skipped(). A function-id mapping takes options.binary.
class ElfResolver : public Resolver {
 public:
  ElfResolver(const SymbolizeOptions& options, std::vector<uint64_t> entries);
  ~ElfResolver() override;

  bool open(const Mapping& mapping, std::string& used, std::string& buildId,
            std::string& why) override;
  const std::vector<SymbolFrame>* frames(const Mapping& mapping, uint64_t address,
                                         bool returnAddress) override;
  // A kernel mapping's symbol table is read on a thread of its own while the binaries' debug
  // information is read on the caller's (both take tens of milliseconds on a perf recording).
  void prefetch(const Mapping& mapping) override;
  std::string problem() override { return bin_ ? bin_->problem() : ""; }
  uint64_t loadBias() const override { return bias_; }

  // Opens the binaries of `mappings` (a path and a build id each; kernel mappings start
  // prefetch()) on a thread of its own, as open() would look for them, while the caller goes on
  // (reading the profile whose mappings these are). open() waits for that thread first. Call it
  // once, before any other call.
  void openAhead(const std::vector<Mapping>& mappings);
  // How many binaries openAhead() opened were taken over so far.
  size_t openedAhead() const { return openedAhead_; }

  // The files skipped so far as not the mapping's binary, once each: "FILE: why".
  const std::vector<std::string>& skipped() const { return skipped_; }
  // The release of the kernel the profile was recorded on ("" if it records none), to tell
  // whether the running kernel's symbols are its.
  void setRecordedKernelRelease(std::string release) { release_ = std::move(release); }

 private:
  struct Entry {
    std::unique_ptr<ElfBinary> binary;
    std::string why;
  };
  ElfBinary* get(const std::string& path, std::string& why);
  ElfBinary* find(const Mapping& mapping, std::string& used, std::string& why);
  ElfBinary* search(const Mapping& mapping, std::string& used, std::string& why);  // find's work
  // Where find() looks for a mapping's binary, in order; the first `byId` by its build id.
  std::vector<std::string> candidates(const Mapping& mapping, size_t& byId) const;
  // Takes the binaries openAhead() opened, once its thread is done.
  void adoptAhead();
  const Kallsyms* kernel(const Mapping& mapping, std::string& used, std::string& buildId,
                         std::string& why);
  // Which table names the kernel mapping's addresses: false, with `why`, where none may.
  bool kernelTable(const Mapping& mapping, std::string& used, std::string& buildId,
                   std::string& why);

  const SymbolizeOptions& options_;
  const std::vector<std::string> dirs_;
  const std::vector<uint64_t> entries_;
  std::map<std::string, Entry> open_;  // by path (a library's segments are several mappings)
  std::map<std::string, bool> warned_;
  struct Found {
    ElfBinary* binary;
    std::string used, why;
  };
  std::unordered_map<std::string, Found> foundById_;  // find()'s, by path and build id
  std::vector<std::string> skipped_;
  ElfBinary* bin_ = nullptr;
  std::string release_;
  std::unique_ptr<Kallsyms> kallsyms_;
  std::string kallsymsWhy_;
  bool kallsymsRead_ = false;
  std::future<std::pair<std::unique_ptr<Kallsyms>, std::string>> kallsymsLoad_;  // prefetch()
  std::string kallsymsLoadPath_;
  std::future<std::vector<std::pair<std::string, Entry>>> ahead_;  // openAhead()
  std::shared_ptr<std::atomic<bool>> stopAhead_;  // tells openAhead()'s thread to stop
  size_t openedAhead_ = 0;
  const Kallsyms* kernel_ = nullptr;  // the mapping last opened is the kernel's
  // A JIT's anonymous code: the maps read, by pid (null: none found), and the one in use.
  const PerfMap* perfMap(const Mapping& mapping, std::string& used, std::string& why);
  std::map<int64_t, std::pair<std::unique_ptr<PerfMap>, std::string>> perfMaps_;
  const PerfMap* jit_ = nullptr;
  uint64_t bias_ = 0;
};

// Why `binary` cannot be the file `mapping` was loaded from, "" if it can: where the profile
// records a build id, the file must have that build id; where it records none (a gperftools
// profile), the file's loadable segments must fit the mapping (ElfBinary::misfit) and the file
// must not have been modified after the profile was written (`profileTime`, nanoseconds since
// the epoch; 0: unknown, not checked) — a program rebuilt since keeps its path and usually its
// segment sizes, and only its time tells it from the build that ran.
std::string mismatch(const Mapping& mapping, const ElfBinary& binary, int64_t profileTime);

}  // namespace profpack
