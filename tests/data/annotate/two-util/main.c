#include <stdio.h>
unsigned long sum_a(unsigned long n);
unsigned long mix_b(unsigned long n);
int main(void) {
  printf("%lu %lu\n", sum_a(3000), mix_b(5000));
  return 0;
}
