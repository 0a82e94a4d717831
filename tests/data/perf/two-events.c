// Page faults and CPU time under main, for a recording of two events (-e
// cpu-clock,page-faults): `touch` faults in fresh pages, `spin` computes. Built and recorded by
// tests/check_perf.py --record (gcc -O1 -g -fno-omit-frame-pointer two-events.c).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char* volatile kept;  // the pages are written, not left out by the compiler

__attribute__((noinline)) static long touch(size_t bytes) {
  char* p = malloc(bytes);
  if (!p) return 0;
  kept = p;
  memset(p, 1, bytes);
  long s = kept[bytes / 2];
  free(p);
  return s;
}

__attribute__((noinline)) static double spin(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  return s;
}

int main(void) {
  double t = 0;
  for (int k = 0; k < 20; ++k) t += touch(16 << 20) + spin(20000000);
  printf("%g\n", t);
  return 0;
}
