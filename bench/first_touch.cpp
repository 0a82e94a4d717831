// Times the first touch of fresh anonymous memory: what a short conversion pays for every page
// it uses. On some virtual machines a huge page costs 10-40 times more in one process than in
// the next (the host backs guest memory lazily and takes freed memory back), while 4 KiB pages
// cost about the same every time. bench_convert.sh prints these figures before and after its
// conversions, so that a run's ratios can be read against the state of the host.
// usage: first_touch MB   (prints "huge MS small MS": milliseconds for MB of each kind)
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

double touchMs(size_t bytes, bool huge) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  auto* bytesP = static_cast<volatile char*>(p);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < bytes; i += 4096) bytesP[i] = 1;
  const std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - t0;
  munmap(p, bytes);
  return d.count();
}

}  // namespace

int main(int argc, char** argv) {
  const long mb = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 32;
  if (mb <= 0 || mb > 4096) {
    std::fprintf(stderr, "usage: first_touch MB (1-4096)\n");
    return 2;
  }
  const size_t bytes = static_cast<size_t>(mb) << 20;
  const double huge = touchMs(bytes, true);
  const double small = touchMs(bytes, false);
  std::printf("huge %.1f small %.1f\n", huge, small);
  return 0;
}
