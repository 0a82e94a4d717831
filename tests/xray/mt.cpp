// Several threads calling into the same functions at once. usage: mt [THREADS]
#include <thread>
#include <vector>

#include "harness.h"

[[gnu::noinline]] int mix(int x) {
  volatile int v = x;
  return (v * 31) ^ (v >> 3);
}

[[gnu::noinline]] int binomial(int n, int k) {
  return k == 0 || k == n ? 1 : binomial(n - 1, k - 1) + binomial(n - 1, k);
}

[[gnu::noinline]] long thread_body(int id) {
  long s = 0;
  for (int i = 0; i < 1500 + 100 * id; ++i) s += mix(i + id);
  return s + binomial(10 + id % 3, 5);
}

int main(int argc, char** argv) {
  const bool fdr = trace_start();
  const int n = argc > 1 ? std::atoi(argv[1]) : 4;
  std::vector<long> out(n);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) threads.emplace_back([t, &out] { out[t] = thread_body(t); });
  for (auto& t : threads) t.join();
  long acc = 0;
  for (long v : out) acc += v;
  std::printf("%ld\n", acc);
  trace_stop(fdr);
  return 0;
}
