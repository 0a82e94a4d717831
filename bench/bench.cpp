// profpack-bench FILE [--level N] [--reps N] [--no-reference]
//
// Converts FILE to .ppk through the public C API and prints: parse MB/s (read into the IR),
// convert MB/s (read + write .ppk), .ppk open time (decompress + open), write-back MB/s,
// peak RSS against the input size, and the .ppk size against `zstd -19` of the raw file.
// Unless --no-reference, it also times the format's reference reader on the same file in the
// same run and prints the ratio. Not a test: figures go to docs/benchmarks.md.
#include <profpack/profpack.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "profpack-bench: %s: %s\n", what, profpack_last_error()->message);
  std::exit(1);
}

long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Seconds a shell command takes (best of `reps`), and whether it succeeded.
double timeCommand(const std::string& cmd, int reps, bool& ok) {
  double best = 1e30;
  ok = true;
  for (int i = 0; i < reps; ++i) {
    auto t = Clock::now();
    int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
    best = std::min(best, since(t));
    if (rc != 0) ok = false;
  }
  return best;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string referenceCommand(profpack_format f, const std::string& file) {
  switch (f) {
    case PROFPACK_FORMAT_CACHEGRIND: return "cg_annotate --auto=no " + quote(file);
    case PROFPACK_FORMAT_CALLGRIND: return "callgrind_annotate --auto=no " + quote(file);
    case PROFPACK_FORMAT_GPERFTOOLS: return "go tool pprof -symbolize=none -raw " + quote(file);
    case PROFPACK_FORMAT_XRAY: return "llvm-xray-14 convert --output-format=yaml " + quote(file);
    case PROFPACK_FORMAT_DCPI: {
      // The project's own dumper; PROFPACK_SOURCE_ROOT when not run from the source tree.
      const char* root = std::getenv("PROFPACK_SOURCE_ROOT");
      return std::string("python3 ") + (root ? root : ".") + "/tests/dcpi_tool.py dump " +
             quote(file);
    }
    default: return "";
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string file;
  int level = 6, reps = 3;
  bool reference = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--level" && i + 1 < argc) {
      level = std::atoi(argv[++i]);
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--no-reference") {
      reference = false;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "usage: profpack-bench FILE [--level N] [--reps N] [--no-reference]\n");
      return 2;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "usage: profpack-bench FILE [--level N] [--reps N] [--no-reference]\n");
    return 2;
  }
  std::ifstream in(file, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), {});
  const double mb = static_cast<double>(raw.size()) / 1e6;
  const long rssBefore = peakRssKb();

  double parse = 1e30, convert = 1e30, open = 1e30, back = 1e30;
  size_t ppkSize = 0;
  uint64_t irBytes = 0;
  profpack_format fmt = PROFPACK_FORMAT_UNKNOWN;
  profpack_write_options wo;
  profpack_write_options_init(&wo);
  profpack_write_options_set(&wo, PROFPACK_WRITE_PPK_LEVEL, level);
  for (int r = 0; r < reps; ++r) {
    auto t = Clock::now();
    profpack_profile* p = nullptr;
    if (profpack_read_memory(raw.data(), raw.size(), nullptr, &p) != PROFPACK_OK) die("read");
    parse = std::min(parse, since(t));
    void* buf = nullptr;
    size_t size = 0;
    if (profpack_write_memory(p, PROFPACK_FORMAT_PPK, &wo, &buf, &size) != PROFPACK_OK)
      die("write .ppk");
    convert = std::min(convert, since(t));
    fmt = profpack_profile_format(p);
    profpack_info info;
    profpack_info_init(&info);
    if (profpack_profile_info(p, &info) == PROFPACK_OK) irBytes = info.ir_bytes;
    profpack_profile_free(p);
    ppkSize = size;
    t = Clock::now();
    profpack_profile* q = nullptr;
    if (profpack_read_memory(buf, size, nullptr, &q) != PROFPACK_OK) die("open .ppk");
    open = std::min(open, since(t));
    t = Clock::now();
    void* out = nullptr;
    size_t outSize = 0;
    if (profpack_write_memory(q, fmt, nullptr, &out, &outSize) != PROFPACK_OK) die("write back");
    back = std::min(back, since(t));
    profpack_free(out);
    profpack_profile_free(q);
    profpack_free(buf);
  }
  const long rss = peakRssKb();

  std::printf("file:              %s (%s, %.1f MB)\n", file.c_str(), profpack_format_name(fmt), mb);
  std::printf("parse:             %8.1f ms  %8.1f MB/s\n", parse * 1e3, mb / parse);
  std::printf("convert to .ppk:   %8.1f ms  %8.1f MB/s  (zstd level %d)\n", convert * 1e3,
              mb / convert, level);
  std::printf(".ppk open:         %8.1f ms  (decompress + open of a %.1f MB IR)\n", open * 1e3,
              static_cast<double>(irBytes) / 1e6);
  std::printf("write back:        %8.1f ms  %8.1f MB/s\n", back * 1e3, mb / back);
  std::printf("peak RSS:          %8.1f MB  (%.2fx the input; %.1f MB before parsing)\n",
              rss / 1024.0, rss / 1024.0 / mb, rssBefore / 1024.0);
  bool ok = false;
  std::string zcmd = "zstd -19 -c " + quote(file) + " | wc -c";
  FILE* z = popen(zcmd.c_str(), "r");
  long zsize = 0;
  if (z && std::fscanf(z, "%ld", &zsize) == 1 && zsize > 0)
    std::printf(
        ".ppk size:         %8zu bytes  %.3fx zstd -19 of the raw file (%ld bytes); raw/ppk "
        "%.1fx\n",
        ppkSize, static_cast<double>(ppkSize) / static_cast<double>(zsize), zsize,
        static_cast<double>(raw.size()) / static_cast<double>(ppkSize));
  if (z) pclose(z);
  if (reference) {
    std::string cmd = referenceCommand(fmt, file);
    if (!cmd.empty()) {
      double t = timeCommand(cmd, 1, ok);
      std::printf("reference:         %8.1f ms  %8.1f MB/s  `%s`%s\n", t * 1e3, mb / t, cmd.c_str(),
                  ok ? "" : " (FAILED)");
      std::printf("ratio:             profpack parse is %.1fx faster than the reference reader\n",
                  t / parse);
    }
  }
  return 0;
}
