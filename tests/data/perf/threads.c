#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) static double work_a(int n) { double s = 0; for (int i = 0; i < n; ++i) s += i * 0.25; return s; }
__attribute__((noinline)) static double work_b(int n) { double s = 1; for (int i = 1; i < n; ++i) s *= 1.0000001; return s; }
static void *run(void *arg) {
  long id = (long)arg; double t = 0;
  for (int k = 0; k < 60; ++k) { t += (id & 1) ? work_a(1000000 + k) : work_b(1000000 + k); __asm__ volatile("" ::: "memory"); }
  return (void *)(long)(t > 0);
}
int main(void) {
  pthread_t th[3];
  for (long i = 0; i < 3; ++i) pthread_create(&th[i], 0, run, (void *)i);
  for (int i = 0; i < 3; ++i) pthread_join(th[i], 0);
  puts("done");
  return 0;
}
