// Times the Callgrind reader on one file in-process (best of N runs): parse = text -> IR in
// memory, encode = IR -> .ppk bytes at the given zstd level. Built by bench_callgrind.sh.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "container/ppk.h"
#include "formats/registry.h"
#include "formats/callgrind/callgrind.h"
#include "util/io.h"
#include "util/pages.h"

// Peak resident set size so far, in bytes (VmHWM of /proc/self/status).
static double peakRss() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %lf", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [runs] [level]\n", argv[0]);
    return 2;
  }
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  int level = argc > 3 ? std::atoi(argv[3]) : 6;
  profpack::InputFile in(argv[1]);
  auto data = in.bytes();
  using clk = std::chrono::steady_clock;
  double rssParse = 0, rssEncode = 0;
  double bestParse = 1e9, bestEncode = 1e9, bestParseCpu = 1e9;
  size_t ppkBytes = 0, messageBytes = 0;
  auto cpu = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  // both threads: the reader and its encoder
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  };
  // As profpack_read_file reads a file: parsed pages of the mapping are dropped (MADV_DONTNEED)
  // rather than paged out of the page cache, which a plain buffer would get.
  profpack::FileMappingScope scope(in.mapped() ? data : std::span<const uint8_t>());
  for (int i = 0; i < runs; ++i) {
    double c0 = cpu();
    auto t0 = clk::now();
    auto p = profpack::readCallgrind(data);
    auto t1 = clk::now();
    bestParseCpu = std::min(bestParseCpu, cpu() - c0);
    if (i == 0) rssParse = peakRss();
    std::string ppk = profpack::encodePpk(*p, level);
    auto t2 = clk::now();
    ppkBytes = ppk.size();
    if (i == 0) rssEncode = peakRss();
    if (i == runs - 1) messageBytes = p->flatSize();
    bestParse = std::min(bestParse, std::chrono::duration<double>(t1 - t0).count());
    bestEncode = std::min(bestEncode, std::chrono::duration<double>(t2 - t1).count());
  }
  double mb = static_cast<double>(data.size()) / 1e6;
  std::printf(
      "input_mb %.2f\nparse_s %.4f\nparse_mb_s %.1f\nparse_cpu_s %.4f\nparse_cpu_mb_s %.1f\n"
      "encode_s %.4f\nmessage_bytes %zu\nppk_bytes %zu\npeak_rss_after_parse %.0f\n"
      "peak_rss_after_encode %.0f\n",
      mb, bestParse, mb / bestParse, bestParseCpu, mb / bestParseCpu, bestEncode, messageBytes,
      ppkBytes, rssParse, rssEncode);
  return 0;
}
