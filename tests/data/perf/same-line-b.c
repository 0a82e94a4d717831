// The second file's `step` (see same-line-a.c): static, declared on line 6 as the first one
// is, and inlined into runB.
//
//
extern volatile long sink;
static inline long step(long i) { return (i * 5) + (i >> 2) + (i * i / 7); }

__attribute__((noinline)) void runB(long n) {
  for (long i = 0; i < n; ++i) sink = sink ^ step(i);
}
