// Precompiled for every source of the core library (meson cpp_pch): the standard and Cap'n
// Proto headers most of them include, parsed once per build instead of once per file. Nothing
// here may depend on the project's own headers or generated code.
// (No include guard: it is only ever given to the compiler with -include.)

#include <capnp/message.h>
#include <capnp/serialize.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>
