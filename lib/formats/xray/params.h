// The XRay writer's parameters (collected by the registry; keys are profpack_write_param's).
#pragma once

#include "formats/codec.h"
#include "formats/xray/xray.h"

namespace profpack {

inline constexpr WriteParam kXrayWriteParams[] = {
    {.key = 2,  // PROFPACK_WRITE_XRAY_MODE
     .format = FormatId::xray,
     .cName = "PROFPACK_WRITE_XRAY_MODE",
     .name = "xray-mode",
     .help = "XRay output mode (default: the input's)",
     .value = "basic or fdr",
     .lowest = -1,
     .highest = 1,
     .defaultValue = -1,
     .range = "-1 (as read), 0 (basic) or 1 (FDR)",
     .choices = "basic=0,fdr=1"},
    {.key = 3,  // PROFPACK_WRITE_XRAY_VERSION
     .format = FormatId::xray,
     .cName = "PROFPACK_WRITE_XRAY_VERSION",
     .name = "xray-version",
     .help = "XRay file version (default: the input's; the newest on a mode change)",
     .value = "1-5 (FDR) or 1-3 (basic)",
     .lowest = 0,
     .highest = 5,
     .defaultValue = 0,
     .range = "0 (as read) or 1-5"},
};

inline constexpr const WriteParam& kXrayMode = kXrayWriteParams[0];
inline constexpr const WriteParam& kXrayVersion = kXrayWriteParams[1];

inline XrayWriteOptions xrayWriteOptions(const WriteOptions& o) {
  return {static_cast<int>(o.get(kXrayMode)), static_cast<int>(o.get(kXrayVersion))};
}

}  // namespace profpack
