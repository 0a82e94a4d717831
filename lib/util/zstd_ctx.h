// zstd compression and decompression contexts, freed with their scope (the .ppk container and
// the .ppka archive make theirs per call). `p` is null where zstd could not allocate one.
#pragma once

#include <zstd.h>

namespace profpack {

struct ZstdCCtx {
  ZSTD_CCtx* p = ZSTD_createCCtx();
  ZstdCCtx() = default;
  ZstdCCtx(const ZstdCCtx&) = delete;
  ZstdCCtx& operator=(const ZstdCCtx&) = delete;
  ~ZstdCCtx() { ZSTD_freeCCtx(p); }
};

struct ZstdDCtx {
  ZSTD_DCtx* p = ZSTD_createDCtx();
  ZstdDCtx() = default;
  ZstdDCtx(const ZstdDCtx&) = delete;
  ZstdDCtx& operator=(const ZstdDCtx&) = delete;
  ~ZstdDCtx() { ZSTD_freeDCtx(p); }
};

}  // namespace profpack
