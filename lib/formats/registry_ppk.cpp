// The .ppk row's writer: the IR, and where the IR is large (kStoredModelMinIR) the whole
// profile's function layer and summary, so that `top` and `info` on the .ppk read them instead
// of computing them from every record (lib/model/stored.h). The layer is computed on a thread
// of its own while the IR compresses.
#include <functional>
#include <future>
#include <string>
#include <system_error>

#include "container/ppk.h"
#include "error.h"
#include "formats/registry.h"
#include "model/stored.h"
#include "profile.h"

namespace profpack {

namespace {
// The whole profile's function layer and summary as a stored::Model message ("" where the
// profile has no model).
std::string storedModelOf(const Profile& p) {
  try {
    return encodeStoredModel(*buildModel(p, {}), p);
  } catch (const Error&) {
    return "";
  }
}
}  // namespace

void writePpk(const Profile& p, int level, Sink& out) {
  std::future<std::string> layer;
  std::function<std::string()> stored;
  if (formatOf(p) != FormatId::unknown && p.flatSize() >= kStoredModelMinIR) {
    try {
      layer = std::async(std::launch::async, [&p] { return storedModelOf(p); });
    } catch (const std::system_error&) {  // no thread to be had: compute it after the IR
    }
    stored = [&] { return layer.valid() ? layer.get() : storedModelOf(p); };
  }
  out.write(encodePpk(p, level, stored));
}

}  // namespace profpack
