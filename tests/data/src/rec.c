#include <stdio.h>
static volatile long sink;
__attribute__((noinline)) long leaf(long n) {
  long s = 0;
  for (long i = 0; i < n * 50; ++i) s += i ^ n;
  return s;
}
__attribute__((noinline)) long fib(long n) {
  if (n < 2) return leaf(n + 1);
  return fib(n - 1) + fib(n - 2) + (n % 3 == 0 ? leaf(n) : 0);
}
__attribute__((noinline)) long even(long n);
__attribute__((noinline)) long odd(long n) { return n == 0 ? 0 : leaf(2) + even(n - 1); }
__attribute__((noinline)) long even(long n) { return n == 0 ? 1 : leaf(1) + odd(n - 1); }
int main(void) {
  sink = fib(14) + even(40);
  printf("%ld\n", sink);
  return 0;
}
