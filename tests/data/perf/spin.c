#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static double leaf(int n) { double s = 0; for (int i = 0; i < n; ++i) s += i * 0.5; return s; }
__attribute__((noinline)) static double mid(int n) { return leaf(n) + leaf(n / 2); }
__attribute__((noinline)) static double other(int n) { double s = 1; for (int i = 1; i < n; ++i) s *= 1.0000001; return s; }
int main(int argc, char **argv) { int r = argc > 1 ? atoi(argv[1]) : 200; double t = 0; for (int k = 0; k < r; ++k) { t += mid(1000000 + k); t += other(500000 + k); __asm__ volatile("" ::: "memory"); } printf("%g\n", t); return 0; }
