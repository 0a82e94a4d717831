/* b/util.c: the same file name in another directory; xors. */
unsigned long mix_b(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i)
    s ^= i * 7u + (s >> 3);
  return s;
}
