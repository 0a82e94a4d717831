/* a/util.c: sums with a stride of 3. */
unsigned long sum_a(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i)
    s += i * 3u;
  return s;
}
