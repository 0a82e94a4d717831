// Page faults and CPU time under main, for a recording of two events (-e
// cpu-clock,page-faults): `touch` faults in fresh pages, `spin` computes. Built and recorded by
// tests/check_perf.py --record (gcc -O1 -g -fno-omit-frame-pointer two-events.c).
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

char* volatile kept;  // the pages are written, not left out by the compiler

// Fresh pages each time (mmap, not malloc, which would reuse freed pages): page faults.
__attribute__((noinline)) static long touch(size_t bytes) {
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 0;
  kept = p;
  memset(p, 1, bytes);
  long s = kept[bytes / 2];
  munmap(p, bytes);
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
