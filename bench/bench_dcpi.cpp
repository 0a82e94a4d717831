// Parse / write throughput of the DCPI reader and writer on one file (see bench_dcpi.sh).
//   bench_dcpi FILE [ITERATIONS]
// Prints the best and median MB/s (1 MB = 10^6 bytes) of readDcpi over the mapped file, and of
// writeDcpi of the result, by wall-clock time and by the thread's CPU time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "formats/dcpi/dcpi.h"
#include "error.h"
#include "util/io.h"

using namespace profpack;
using Clock = std::chrono::steady_clock;

// CPU time of this thread: on a shared machine it is far steadier than wall time.
double cpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

namespace {
void report(const char* what, std::vector<double> secs, size_t bytes, const char* clock) {
  std::sort(secs.begin(), secs.end());
  const double mb = static_cast<double>(bytes) / 1e6;
  std::printf("%-6s %-4s %8.1f MB/s best, %8.1f MB/s median (%zu bytes, %zu runs)\n", what, clock,
              mb / secs.front(), mb / secs[secs.size() / 2], bytes, secs.size());
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_dcpi FILE [ITERATIONS]\n");
    return 2;
  }
  int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  if (iterations < 1) iterations = 1;
  try {
    InputFile in(argv[1]);
    auto bytes = in.bytes();
    std::vector<double> parse, write, parseCpu, writeCpu;
    size_t written = 0;
    for (int i = 0; i < iterations; ++i) {
      double c0 = cpuSeconds();
      auto t0 = Clock::now();
      auto p = readDcpi(bytes);
      auto t1 = Clock::now();
      double c1 = cpuSeconds();
      std::string out = writeDcpi(*p);
      auto t2 = Clock::now();
      double c2 = cpuSeconds();
      parseCpu.push_back(c1 - c0);
      writeCpu.push_back(c2 - c1);
      if (out.size() != bytes.size()) {
        std::fprintf(stderr, "bench_dcpi: rewrite differs in size\n");
        return 1;
      }
      written = out.size();
      parse.push_back(std::chrono::duration<double>(t1 - t0).count());
      write.push_back(std::chrono::duration<double>(t2 - t1).count());
    }
    report("parse", parse, bytes.size(), "wall");
    report("parse", parseCpu, bytes.size(), "cpu");
    report("write", write, written, "wall");
    report("write", writeCpu, written, "cpu");
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_dcpi: %s\n", e.what());
    return 1;
  }
  return 0;
}
