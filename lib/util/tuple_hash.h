// A hash of a std::tuple of names and numbers, for the unordered_maps keyed by one (a
// function's name, file and object, say): std::hash has none for tuples.
#pragma once

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>

namespace profpack {

struct TupleHash {
  template <class... T>
  size_t operator()(const std::tuple<T...>& key) const {
    // Each element's hash mixed into the running one by a multiply (std::hash of a number is
    // the number itself).
    size_t h = 0;
    std::apply(
        [&h](const auto&... e) {
          ((h = (h ^ std::hash<std::decay_t<decltype(e)>>()(e)) * 0x9e3779b97f4a7c15ull), ...);
        },
        key);
    return h;
  }
};

}  // namespace profpack
