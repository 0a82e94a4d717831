// A stable sort for a sequence that comes as a few ascending runs (records of several sources,
// each in order, one source after another): the runs are found and merged, neighbours in pairs,
// until one is left. n log(runs) steps where a sort takes n log n.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace profpack {

// Sorts `v` by `less`, equal elements in the order they came. `scratch` and `runs` are the
// caller's, kept between calls so that their memory is reused.
template <typename T, typename Less>
void sortRuns(std::vector<T>& v, std::vector<T>& scratch, std::vector<size_t>& runs, Less less) {
  runs.assign(1, 0);  // where each run starts, then the end
  for (size_t i = 1; i < v.size(); ++i)
    if (less(v[i], v[i - 1])) runs.push_back(i);
  runs.push_back(v.size());
  if (runs.size() <= 2) return;
  scratch.resize(v.size());
  while (runs.size() > 2) {
    size_t kept = 1;
    for (size_t k = 0; k + 1 < runs.size(); k += 2) {
      const size_t end = k + 2 < runs.size() ? runs[k + 2] : runs[k + 1];
      // std::merge takes the first range's element first among equals: stable.
      std::merge(v.begin() + runs[k], v.begin() + runs[k + 1], v.begin() + runs[k + 1],
                 v.begin() + end, scratch.begin() + runs[k], less);
      runs[kept++] = end;
    }
    runs.resize(kept);
    v.swap(scratch);
  }
}

}  // namespace profpack
