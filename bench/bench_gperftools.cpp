// Times the gperftools reader, the .ppk encoder/decoder and the writer on one profile.
// usage: bench_gperftools PROFILE [OUT.ppk]   (prints "key: value" lines)
#include <zstd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "container/ppk.h"
#include "formats/registry.h"
#include "formats/gperftools/gperftools.h"
#include "util/io.h"

using namespace profpack;

namespace {
double cpuNow() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Best of `runs`: wall-clock seconds and CPU seconds of this process (the machine may be
// shared, so CPU time is the steadier figure).
struct Time {
  double wall = 1e30, cpu = 1e30;
};
template <class F>
Time bestOf(int runs, F&& f) {
  Time best;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpuNow();
    f();
    double c = cpuNow() - c0;
    std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    best.wall = std::min(best.wall, d.count());
    best.cpu = std::min(best.cpu, c);
  }
  return best;
}
// zstd-compressed size of a column's data alone (level 3, the .ppk default).
size_t packed(ir::Column::Reader c) {
  std::string all;
  for (auto chunk : c.getChunks())
    all.append(reinterpret_cast<const char*>(chunk.begin()), chunk.size());
  std::string out(ZSTD_compressBound(all.size()), '\0');
  return ZSTD_compress(out.data(), out.size(), all.data(), all.size(), 3);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_gperftools PROFILE [OUT.ppk]\n");
    return 2;
  }
  try {
    InputFile in(argv[1]);
    auto data = in.bytes();
    const double mb = static_cast<double>(data.size()) / 1e6;
    std::unique_ptr<Profile> p;
    Time parse = bestOf(5, [&] { p = readGperftools(data); });
    std::string ppk;
    Time encode = bestOf(1, [&] { ppk = encodePpk(*p, 6); });
    std::unique_ptr<Profile> q;
    Time decode = bestOf(3, [&] {
      q = decodePpk({reinterpret_cast<const uint8_t*>(ppk.data()), ppk.size()},
                    kDefaultMaxPpkMessage);
    });
    std::string back;
    Time write = bestOf(3, [&] { back = writeGperftools(*q); });
    bool same = back.size() == data.size() &&
                std::equal(back.begin(), back.end(), reinterpret_cast<const char*>(data.data()));
    auto st = p->root().getStacks();
    std::printf("input_bytes: %zu\n", data.size());
    std::printf("records: %llu\nnodes: %llu\n", (unsigned long long)st.getSampleCount().getCount(),
                (unsigned long long)st.getNodeParent().getCount());
    std::printf("parse_cpu_s: %.4f\nparse_wall_s: %.4f\n", parse.cpu, parse.wall);
    std::printf("parse_MBps_cpu: %.0f\nparse_MBps_wall: %.0f\n", mb / parse.cpu, mb / parse.wall);
    std::printf("ppk_encode_cpu_s: %.4f\nppk_decode_cpu_s: %.4f\n", encode.cpu, decode.cpu);
    std::printf("write_cpu_s: %.4f\nwrite_MBps_cpu: %.0f\n", write.cpu, mb / write.cpu);
    std::printf(
        "column_zstd_bytes: nodeParent %zu nodeAddress %zu sampleCount %zu sampleNode %zu\n",
        packed(st.getNodeParent()), packed(st.getNodeAddress()), packed(st.getSampleCount()),
        packed(st.getSampleNode()));
    std::printf("ppk_bytes: %zu\nrewrite_identical: %s\n", ppk.size(), same ? "yes" : "NO");
    if (argc > 2) writeFileAtomic(argv[2], ppk);
    return same ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gperftools: %s\n", e.what());
    return 1;
  }
}
