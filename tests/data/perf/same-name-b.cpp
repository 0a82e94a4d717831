// The second file's `work`: static, so a function of its own beside same-name-a.cpp's.
extern volatile long sink;

// Declared on another line than the first file's `work`.
static __attribute__((noinline)) void work(long n) {
  for (long i = 0; i < n; ++i) sink = sink ^ i;
}

void runB(long n) { work(n); }
