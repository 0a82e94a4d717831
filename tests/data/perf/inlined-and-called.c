// A static function both inlined (into runA) and called out of line (through a pointer, from
// runB): one function, whose self samples are those of both. Built and recorded by
// tests/check_perf.py --record (gcc -O2 -g -fno-omit-frame-pointer inlined-and-called.c).
#include <stdio.h>

static long step(long x) {
  for (int i = 0; i < 64; i++) x = x * 6364136223846793005L + 1442695040888963407L;
  return x;
}
long (*volatile indirect)(long) = step;

__attribute__((noinline)) long runA(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += step(i);
  return s;
}

__attribute__((noinline)) long runB(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += indirect(i);
  return s;
}

int main(void) {
  printf("%ld\n", runA(5000000) + runB(5000000));
  return 0;
}
