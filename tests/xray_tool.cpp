// Test helper: reads an XRay trace (or .ppk) and writes it as XRay of a chosen mode and version,
// through the .ppk container. usage: xray_tool IN OUT [fdr|basic|same] [VERSION]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "error.h"
#include "formats/registry.h"
#include "formats/xray/params.h"
#include "util/io.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: xray_tool IN OUT [fdr|basic|same] [VERSION]\n");
    return 2;
  }
  try {
    profpack::InputFile in(argv[1]);
    profpack::ReadOptions ro{uint64_t{4} << 30, false};
    auto p = profpack::readProfile(in.bytes(), ro);
    profpack::WriteOptions wo;
    std::string ppk = profpack::writeProfile(*p, profpack::FormatId::ppk, wo);
    auto q = profpack::readProfile({reinterpret_cast<const uint8_t*>(ppk.data()), ppk.size()}, ro);
    std::string mode = argc > 3 ? argv[3] : "same";
    wo.set(profpack::kXrayMode, mode == "fdr" ? 1 : mode == "basic" ? 0 : -1);
    wo.set(profpack::kXrayVersion, argc > 4 ? std::atoi(argv[4]) : 0);
    profpack::writeFileAtomic(argv[2], profpack::writeProfile(*q, profpack::FormatId::xray, wo));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xray_tool: %s\n", e.what());
    return 1;
  }
  return 0;
}
