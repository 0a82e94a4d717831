// Two static functions of one name declared on the same line of two files (same-line-b.c has
// the other), each inlined into its file's caller: two functions, each called by its own
// file's run. Built and recorded by tests/check_perf.py --record (gcc -O2 -g
// -fno-omit-frame-pointer same-line-a.c same-line-b.c).
volatile long sink;
static inline long step(long i) { return (i * 7) ^ (i >> 3) ^ (i * i / 5); }

__attribute__((noinline)) void runA(long n) {
  for (long i = 0; i < n; ++i) sink = sink + step(i);
}

void runB(long n);

int main(void) {
  runA(300000000);
  runB(150000000);
  return 0;
}
