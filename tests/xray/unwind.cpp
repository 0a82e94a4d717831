// One thread whose calls do not all return: an exception thrown past thrower() to catcher(),
// a longjmp past jumper() back into setter(); each calls leaf() before and after.
// usage: unwind [ROUNDS]
#include <csetjmp>
#include <stdexcept>

#include "harness.h"

volatile long sink;
[[gnu::noinline]] long leaf(int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += i * i;
  sink = s;
  return s;
}
[[gnu::noinline]] void thrower(int x) {
  leaf(500);
  if (x % 3 == 0) throw std::runtime_error("x");
}
[[gnu::noinline]] void catcher(int x) {
  try {
    thrower(x);
  } catch (...) {
    leaf(50);
  }
}
static std::jmp_buf jb;
[[gnu::noinline]] void jumper() {
  leaf(300);
  std::longjmp(jb, 1);
}
[[gnu::noinline]] void setter() {
  if (!setjmp(jb)) jumper();
  leaf(10);
}

int main(int argc, char** argv) {
  const bool fdr = trace_start();
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 30;
  for (int r = 0; r < rounds; ++r) {
    catcher(r);
    setter();
  }
  trace_stop(fdr);
  return 0;
}
