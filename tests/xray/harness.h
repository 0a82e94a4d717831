// Recording support for the XRay test programs (LLVM 14 runtime, x86-64).
// XRAY_OPTIONS=xray_mode=xray-basic starts basic mode by itself; xray-fdr only selects the mode,
// so trace_start() initialises it with $FDR_CONFIG ("key=value:key=value") and trace_stop()
// finalises the log and flushes it to the file.
#pragma once
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef WITH_TYPED
// LLVM 14's typed-event trampoline calls the handler with the stack 8 bytes off 16-byte
// alignment, and the FDR handler crashes on an aligned SSE store. A handler that realigns the
// stack and forwards to FDR mode's own avoids that.
namespace __xray {
void fdrLoggingHandleTypedEvent(uint16_t, const void*, std::size_t) noexcept;
}
[[clang::xray_never_instrument, gnu::force_align_arg_pointer]] static void realigned_typed_event(
    uint16_t type, const void* payload, std::size_t size) {
  __xray::fdrLoggingHandleTypedEvent(type, payload, size);
}
#endif

[[clang::xray_never_instrument]] static bool trace_start() {
  const char* mode = __xray_log_get_current_mode();
  if (mode == nullptr || std::strcmp(mode, "xray-fdr") != 0) return false;
  const char* config = std::getenv("FDR_CONFIG");
  if (__xray_log_init_mode("xray-fdr", config ? config : "") !=
      XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "xray-fdr did not initialise (FDR_CONFIG=%s)\n", config ? config : "");
    std::exit(3);
  }
#ifdef WITH_TYPED
  __xray_set_typedevent_handler(realigned_typed_event);
#endif
  return true;
}

[[clang::xray_never_instrument]] static void trace_stop(bool fdr) {
  if (!fdr) return;
  if (__xray_log_finalize() != XRayLogInitStatus::XRAY_LOG_FINALIZED ||
      __xray_log_flushLog() != XRayLogFlushStatus::XRAY_LOG_FLUSHED) {
    std::fprintf(stderr, "xray-fdr: the trace was not written\n");
    std::exit(3);
  }
}
