// Two static functions of one name in two files of one program (same-name-b.cpp has the
// other), and two lambdas inlined into one template: perf counts each as its own function, and
// so must profpack. Built and recorded by tests/check_perf.py --record (g++ -O2 -g
// -fno-omit-frame-pointer same-name-a.cpp same-name-b.cpp).
volatile long sink;

static __attribute__((noinline)) void work(long n) {
  for (long i = 0; i < n; ++i) sink = sink + i;
}

void runA(long n) { work(n); }

template <class F>
__attribute__((noinline)) void call(F f, long n) {
  for (long i = 0; i < n; ++i) f(i);
}

void runB(long n);

int main() {
  runA(300000000);
  runB(100000000);
  call([](long i) { sink = sink + i; }, 300000000);
  call([](long i) { sink = sink ^ (i * 3); }, 100000000);
  return 0;
}
