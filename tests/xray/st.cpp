// One thread: deep and wide recursion, a loop of short calls, a tail call (a TailExit record
// at -O2), a function that logs its argument, and custom events (typed ones with -DWITH_TYPED).
// usage: st [ROUNDS [EVENTS]]
#include "harness.h"

[[gnu::noinline]] unsigned collatz_steps(unsigned n) {
  return n <= 1 ? 0 : 1 + collatz_steps(n % 2 ? 3 * n + 1 : n / 2);
}

[[gnu::noinline]] int square(int x) {
  volatile int v = x;
  return v * v;
}

[[gnu::noinline]] long sum_squares(int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += square(i % 97);
  return s;
}

[[gnu::noinline]] int ackermann(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

[[gnu::noinline]] int forward(int x) { return square(x ^ 5); }  // a tail call

[[clang::xray_always_instrument, clang::xray_log_args(1), gnu::noinline]] int logged(int x) {
  volatile int v = x;
  return v - 1;
}

[[gnu::noinline]] void events(int round) {
  char text[24];
  int n = std::snprintf(text, sizeof text, "round %d", round);
  __xray_customevent(text, n);
#ifdef WITH_TYPED
  // llvm-xray 14 cannot load the instrumentation map of a binary with typed-event sleds.
  static const char payload[] = "typed event";
  __xray_typedevent(7, payload, sizeof payload - 1);
#endif
}

int main(int argc, char** argv) {
  const bool fdr = trace_start();
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 1;
  const bool with_events = argc > 2 ? std::atoi(argv[2]) != 0 : true;
  long acc = 0;
  for (int r = 0; r < rounds; ++r) {
    acc += collatz_steps(27 + r);
    acc += sum_squares(800);
    acc += ackermann(2, 3);
    acc += forward(r);
    acc += logged(r);
    if (with_events) events(r);
  }
  std::printf("%ld\n", acc);
  trace_stop(fdr);
  return 0;
}
