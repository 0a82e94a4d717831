/* A small CPU-bound program for profpack's symbolization tests (tests/check_symbolize.py):
 * hot loops the compiler cannot remove, in functions that stay out of line, and `fold`, which
 * is inlined into `work` when built with -DINLINE_FOLD. */
#include <stdio.h>
#include <stdlib.h>

#ifdef INLINE_FOLD
#define FOLD static inline __attribute__((always_inline))
#else
#define FOLD __attribute__((noinline))
#endif

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long mix(unsigned long x, int rounds) {
  for (int i = 0; i < rounds; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

FOLD unsigned long fold(unsigned long x, int rounds) {
  unsigned long acc = 0;
  for (int i = 0; i < rounds; ++i) acc += (x >> (i & 31)) ^ (acc << 3);
  return acc;
}

__attribute__((noinline)) unsigned long work(unsigned long seed, int n) {
  unsigned long x = seed;
  for (int i = 0; i < n; ++i) {
    x = mix(x, 2000);
    x ^= fold(x, 1000);
  }
  return x;
}

__attribute__((noinline)) unsigned long other(unsigned long seed, int n) {
  unsigned long x = seed;
  for (int i = 0; i < n; ++i) x = mix(x + (unsigned long)i, 500);
  return x;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40000;
  sink = work(1, n);
  sink += other(2, n);
  printf("%lu\n", (unsigned long)sink);
  return 0;
}
