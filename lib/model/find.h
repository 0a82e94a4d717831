// Finding functions by name, as an editor or a user types one: the exact name, FILE:FUNCTION,
// or a regular expression (as pprof's -focus and -peek take one); and near names for a miss.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace profpack {

// The functions `pattern` names, ascending by index: those named exactly `pattern`; else, where
// it is FILE:FUNCTION (a colon that is not part of "::"), those named FUNCTION whose file is
// FILE or ends in "/FILE"; else those whose name the ECMAScript regular expression `pattern`
// matches anywhere (none for an invalid expression).
std::vector<uint64_t> findFunctions(const Model& model, std::string_view pattern);

// Up to `n` functions whose names are nearest `name`: fewest edits (case folded), then shortest
// name; names containing `name` first. For "did you mean" after findFunctions found none.
std::vector<uint64_t> similarFunctions(const Model& model, std::string_view name, size_t n);

}  // namespace profpack
