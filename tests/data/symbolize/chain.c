/* An inlined function that calls out: its caller's frame is the chain [outer, helper], and
   outer is never the innermost function of any address with samples. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) unsigned long spin(unsigned long x, long n) {
  for (long i = 0; i < n; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

static inline __attribute__((always_inline)) unsigned long helper(unsigned long x, long n) {
  return spin(x, n) ^ (x >> 7);
}

__attribute__((noinline)) unsigned long outer(unsigned long x, long n) { return helper(x, n); }

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000000;
  sink = outer(1, n);
  printf("%lu\n", (unsigned long)sink);
  return 0;
}
