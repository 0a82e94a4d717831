// The gperftools writer's parameters (collected by the registry; keys are profpack_write_param's).
#pragma once

#include "formats/codec.h"
#include "formats/gperftools/gperftools.h"

namespace profpack {

inline constexpr WriteParam kGperftoolsWriteParams[] = {
    {.key = 4,  // PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES
     .format = FormatId::gperftools,
     .cName = "PROFPACK_WRITE_GPERFTOOLS_SLOT_BYTES",
     .name = "slot-bytes",
     .help = "gperftools slot width in bytes (default: as read)",
     .value = "4 or 8",
     .lowest = 0,
     .highest = 8,
     .defaultValue = 0,
     .range = "0 (as read), 4 or 8",
     .allowed = [](int64_t v) { return v == 0 || v == 4 || v == 8; }},
    {.key = 5,  // PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER
     .format = FormatId::gperftools,
     .cName = "PROFPACK_WRITE_GPERFTOOLS_BYTE_ORDER",
     .name = "byte-order",
     .help = "gperftools byte order (default: as read)",
     .value = "little or big",
     .lowest = 0,
     .highest = 2,
     .defaultValue = 0,
     .range = "0 (as read), 1 (little-endian) or 2 (big-endian)",
     .choices = "little=1,big=2"},
};

inline constexpr const WriteParam& kGperftoolsSlotBytes = kGperftoolsWriteParams[0];
inline constexpr const WriteParam& kGperftoolsByteOrder = kGperftoolsWriteParams[1];

inline GperfWriteOptions gperftoolsWriteOptions(const WriteOptions& o) {
  GperfWriteOptions g;
  g.slotBytes = static_cast<unsigned>(o.get(kGperftoolsSlotBytes));
  const int64_t order = o.get(kGperftoolsByteOrder);
  g.byteOrder = order == 1   ? GperfWriteOptions::ByteOrder::little
                : order == 2 ? GperfWriteOptions::ByteOrder::big
                             : GperfWriteOptions::ByteOrder::asRead;
  return g;
}

}  // namespace profpack
