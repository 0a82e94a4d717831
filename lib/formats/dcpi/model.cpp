// The model of a DCPI profile: each sampled instruction address is a function named by its hex
// address, object = the image's path; one event per distinct `event` header value; no calls,
// so inclusive is self. Locations are the same addresses, one mapping per image.

#include "formats/dcpi/model.h"

#include "formats/dcpi/dcpi.h"
#include "util/text.h"

namespace profpack {

namespace {

class ImageSource : public ModelSource {
 public:
  explicit ImageSource(const Profile& profile) : profile_(profile) {
    auto images = profile.root().getImages();
    for (unsigned i = 0; i < images.size(); ++i) images_.push_back(decodeDcpiImage(images[i]));
  }

  uint32_t capabilities() const override { return kCapAddresses; }

  void functions(FunctionLayer& out) override {
    for (size_t i = 0; i < images_.size(); ++i) {
      const DcpiImage& image = images_[i];
      size_t e = 0;
      while (e < out.eventNames.size() && out.eventNames[e] != image.event) ++e;
      if (e == out.eventNames.size()) {
        widen(out, image.event);
        out.eventPeriods.resize(out.eventNames.size(), 0);
        out.eventPeriods[e] = image.period;
      } else if (out.eventPeriods[e] != image.period) {
        out.eventPeriods[e] = 0;  // images sampled at different periods: none stands for all
      }
      const size_t ne = out.eventNames.size();
      for (const DcpiAddressSamples& a : dcpiSamplesByAddress(image)) {
        std::string name;
        appendHex(name, a.address);
        const uint64_t f = out.addFunction({std::move(name), "", image.path});
        out.self[f * ne + e] = a.samples;
        addresses_.push_back({a.address, static_cast<int64_t>(i), f, e, a.samples});
      }
    }
    out.inclusive = out.self;  // no call information: inclusive is self
    events_ = out.eventNames.size();
  }

  void locations(LocationLayer& out) override {
    for (const DcpiImage& image : images_) {
      uint64_t end = image.textStart;
      for (size_t k = 0; k < image.offset.size(); ++k)
        end = std::max(end, image.textStart + image.offset[k] + 4 * image.number[k]);
      // DCPI records link-time addresses of the image's text.
      out.mappings.push_back({image.textStart, end, 0, image.path, true});
    }
    // In image order, addresses ascending: the order the function layer made them in.
    for (const Address& a : addresses_) {
      out.locations.push_back({a.address, a.mapping, static_cast<int64_t>(a.function), 0});
      out.self.resize(out.self.size() + events_, 0);
      out.self[out.self.size() - events_ + a.event] = a.samples;
    }
  }

  Summary summary() override {
    auto root = profile_.root();
    Summary s;
    s.formatVersion = root.getFormatVersion().cStr();
    const size_t strings = profile_.strings().size();
    s.strings = strings > 0 ? strings - 1 : 0;
    for (const DcpiImage& image : images_) s.records += image.offset.size();  // chunks
    s.objects = images_.size();
    return s;
  }

 private:
  // A new event column: every function's cost row gets one more value.
  static void widen(FunctionLayer& out, const std::string& event) {
    const size_t before = out.eventNames.size();
    out.eventNames.push_back(event);
    std::vector<uint64_t> wider(out.functions.size() * (before + 1), 0);
    for (size_t f = 0; f < out.functions.size(); ++f)
      for (size_t k = 0; k < before; ++k) wider[f * (before + 1) + k] = out.self[f * before + k];
    out.self = std::move(wider);
    out.inclusive.assign(out.self.size(), 0);
  }

  struct Address {
    uint64_t address;
    int64_t mapping;
    uint64_t function;
    size_t event;
    uint64_t samples;
  };
  const Profile& profile_;
  std::vector<DcpiImage> images_;
  std::vector<Address> addresses_;
  size_t events_ = 0;
};

}  // namespace

std::unique_ptr<ModelSource> imageModel(const Profile& profile, const ModelOptions&) {
  return std::make_unique<ImageSource>(profile);
}

}  // namespace profpack
