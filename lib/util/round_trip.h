// A coding kept only where it decodes to what it codes, byte for byte (the formats' archive
// codings: lib/formats/*/archive_coding.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "error.h"

namespace profpack {

// `coded` where `decode` gives `original` back byte for byte; nothing where it gives other
// bytes or refuses them (a profpack::Error).
template <typename Decode>
std::optional<std::string> ifDecodesTo(std::string coded, std::string_view original,
                                       Decode&& decode) {
  try {
    if (decode(std::string_view(coded)) != original) return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
  return coded;
}

}  // namespace profpack
