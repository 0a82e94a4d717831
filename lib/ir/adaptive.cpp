#include "ir/adaptive.h"

#include <algorithm>
#include <array>
#include <bit>

#include "ir/column.h"

namespace profpack {

namespace {

constexpr unsigned kProbBits = 12;  // of the estimate the coder uses
constexpr uint32_t kTop = 1u << 24;

// The estimate that a decision is 0, in 16 bits, with the number of outcomes seen so far: the
// k-th outcome moves it 1/(k+1) of the way towards that outcome, and from the 31st on 1/32 of
// the way, so a context learns fast at first and then settles.
struct Prob {
  uint16_t p = 1u << 15;
  uint8_t n = 0;
};
constexpr unsigned kSettled = 30;
constexpr auto kRate = [] {
  std::array<uint32_t, kSettled + 1> r{};
  for (unsigned n = 0; n < kSettled; ++n) r[n] = 65536 / (n + 2);
  r[kSettled] = 65536 / 32;
  return r;
}();

inline uint32_t estimate(const Prob& p) { return p.p >> (16 - kProbBits); }

// Branch-free: the data's bits are close to random, and a mispredicted branch per decision
// costs more than both arms.
inline void adapt(Prob& p, unsigned bit) {
  const uint32_t rate = kRate[p.n];
  const uint32_t v = p.p;
  const uint32_t down = v - ((v * rate) >> 16), up = v + (((65536 - v) * rate) >> 16);
  // Keep the coder's 12-bit estimate within 1..4095.
  p.p = static_cast<uint16_t>(
      std::clamp<uint32_t>(bit ? down : up, 1u << (16 - kProbBits), 65535u - 15u));
  p.n = static_cast<uint8_t>(p.n + (p.n < kSettled));
}

// One probability per decision context (see adaptive.h).
struct Model {
  Prob width[128];  // the 7 bits of the bit length, as a node 1..127 of a binary tree
  Prob top[65][8];  // by n and the bits so far, as a node 1..7 of a binary tree
  Prob low[65][64];
};

class Encoder {
 public:
  explicit Encoder(std::vector<uint8_t>& out) : out_(out) {}
  // Codes decision b and returns it.
  unsigned bit(Prob& p, unsigned b) {
    const uint32_t bound = (range_ >> kProbBits) * estimate(p);
    low_ += b ? bound : 0;
    range_ = b ? range_ - bound : bound;
    adapt(p, b);
    while (range_ < kTop) {
      range_ <<= 8;
      shiftLow();
    }
    return b;
  }
  void finish() {
    for (int i = 0; i < 5; ++i) shiftLow();
  }

 private:
  // Emits the byte above the low 24 bits once no carry can reach it any more; a run of 0xff
  // bytes waits (pending_) until a carry resolves it.
  void shiftLow() {
    if (static_cast<uint32_t>(low_) < 0xff000000u || (low_ >> 32) != 0) {
      const uint8_t carry = static_cast<uint8_t>(low_ >> 32);
      uint8_t byte = cache_;
      do {
        if (started_)
          out_.push_back(static_cast<uint8_t>(byte + carry));
        else
          started_ = true;  // the always-zero leading byte
        byte = 0xff;
      } while (--pending_ != 0);
      cache_ = static_cast<uint8_t>(low_ >> 24);
    }
    ++pending_;
    low_ = (low_ & 0x00ffffffu) << 8;
  }
  std::vector<uint8_t>& out_;
  uint64_t low_ = 0;
  uint32_t range_ = 0xffffffffu;
  uint8_t cache_ = 0;
  uint64_t pending_ = 1;
  bool started_ = false;
};

class Decoder {
 public:
  Decoder(const uint8_t* p, const uint8_t* e) : p_(p), e_(e) {
    for (int i = 0; i < 4; ++i) code_ = code_ << 8 | next();
  }
  // Reads a decision and returns it (the second argument, what an Encoder would code, is
  // unused).
  unsigned bit(Prob& p, unsigned) {
    const uint32_t bound = (range_ >> kProbBits) * estimate(p);
    const unsigned b = code_ >= bound;
    code_ -= b ? bound : 0;
    range_ = b ? range_ - bound : bound;
    adapt(p, b);
    while (range_ < kTop) {
      range_ <<= 8;
      code_ = code_ << 8 | next();
    }
    return b;
  }
  bool overran() const { return overran_; }

 private:
  uint8_t next() {
    if (p_ < e_) return *p_++;
    overran_ = true;
    return 0;
  }
  const uint8_t *p_, *e_;
  uint32_t range_ = 0xffffffffu, code_ = 0;
  bool overran_ = false;
};

// Codes one value as adaptive.h describes, through an Encoder (which writes v) or a Decoder
// (which ignores v's bits and reads the value into v). False if a Decoder reads a bit length
// over 64, which no Encoder writes.
template <class Coder>
bool codeValue(Coder& rc, Model& m, uint64_t& v) {
  const unsigned given = static_cast<unsigned>(std::bit_width(v));
  unsigned node = 1;
  for (int k = 6; k >= 0; --k) node = node * 2 + rc.bit(m.width[node], (given >> k) & 1);
  const unsigned width = node - 128;
  if (width > 64) return false;
  uint64_t out = width ? 1 : 0;
  node = 1;
  for (unsigned d = 0; d + 1 < width; ++d) {
    const unsigned want = (v >> (width - 2 - d)) & 1;
    unsigned b;
    if (d < 3) {
      b = rc.bit(m.top[width][node], want);
      node = node * 2 + b;
    } else {
      b = rc.bit(m.low[width][d], want);
    }
    out = out << 1 | b;
  }
  v = out;
  return true;
}

}  // namespace

void encodeAdaptive(const uint64_t* values, size_t n, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  Model m;
  Encoder rc(out);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = values[i];
    codeValue(rc, m, v);
  }
  rc.finish();
  const uint64_t minBytes = (n + kAdaptiveValuesPerByte - 1) / kAdaptiveValuesPerByte;
  if (out.size() - start < minBytes) out.resize(start + minBytes, 0);
}

bool decodeAdaptiveAsVarints(const uint8_t* p, const uint8_t* e, uint64_t n,
                             std::vector<uint8_t>& out) {
  Model m;
  Decoder rc(p, e);
  uint8_t buf[10];
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    if (!codeValue(rc, m, v) || rc.overran()) return false;
    out.insert(out.end(), buf, putVarint(buf, v));
  }
  return true;
}

}  // namespace profpack
