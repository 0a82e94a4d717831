// The DCPI writer's parameters (collected by the registry; keys are profpack_write_param's).
#pragma once

#include "formats/codec.h"

namespace profpack {

inline constexpr WriteParam kDcpiWriteParams[] = {
    {.key = 64,  // PROFPACK_WRITE_DCPI_IMAGE
     .format = FormatId::dcpi,
     .cName = "PROFPACK_WRITE_DCPI_IMAGE",
     .name = "image",
     .help = "the DCPI image (path or index) of a profile of several",
     .value = "a path or an index",
     .isString = true,
     .range = "a string"},
};

inline constexpr const WriteParam& kDcpiImage = kDcpiWriteParams[0];

// The image to write: its path or index; "" for a profile of one image.
inline std::string dcpiWriteImage(const WriteOptions& o) { return o.getString(kDcpiImage); }

}  // namespace profpack
