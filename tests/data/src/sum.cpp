#include <cstdio>
#include <vector>
struct Acc { long total = 0; int n = 0; };
__attribute__((noinline)) Acc sum(const std::vector<int>& v) {
  Acc a;
  for (int x : v) {
    if (x % 3 == 0) a.total += x; else a.total -= x / 2;
    ++a.n;
  }
  return a;
}
int main() {
  std::vector<int> v;
  for (int i = 0; i < 5000; i++) v.push_back(i * 7 % 101);
  Acc a = sum(v);
  std::printf("%ld %d\n", a.total, a.n);
}
