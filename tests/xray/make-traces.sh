#!/usr/bin/env bash
# Records XRay traces with the real LLVM 14 runtime: builds st.cpp and mt.cpp with
# clang++-14 -fxray-instrument (clang-14, libclang-rt-14-dev) into OUTDIR and runs them in FDR
# and basic mode. The binaries stay in OUTDIR (st, mt, st_o2, st_typed, unwind) for llvm-xray's
# --instr_map; each trace is OUTDIR/MODE-PROGRAM.<exe>.<suffix> (the runtime names the file).
#   fdr-st     st, one buffer size (custom events)      fdr-mt     mt, 4 threads
#   fdr-st_o2  st at -O2 (TailExit records)             fdr-typed  st_typed: custom + typed events
#   fdr-big    st, ROUNDS rounds (default 100) in 64 KiB buffers: many buffers of one thread
#   basic-st, basic-mt  the same programs in basic mode
#   basic-unwind  unwind.cpp: calls an exception or a longjmp goes past, which never return
# usage: make-traces.sh OUTDIR
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: make-traces.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cxx() { clang++-14 -fxray-instrument -fxray-instruction-threshold=1 -I"$src" "$@"; }
cxx -O1 -o "$out/st" "$src/st.cpp" &
cxx -O1 -pthread -o "$out/mt" "$src/mt.cpp" &
cxx -O2 -o "$out/st_o2" "$src/st.cpp" &
cxx -O1 -DWITH_TYPED -o "$out/st_typed" "$src/st.cpp" &
cxx -O1 -o "$out/unwind" "$src/unwind.cpp" &
for job in $(jobs -p); do wait "$job"; done
cd "$out"
record() {  # MODE BASE PROGRAM ARGS...: run PROGRAM with the XRay runtime logging to BASE.*
  local mode=$1 base=$2; shift 2
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_logfile_base=$out/$base." \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=1024" \
    FDR_CONFIG=${FDR_CONFIG:-func_duration_threshold_us=0} "$@" >/dev/null
}
record fdr fdr-st ./st 1
record fdr fdr-mt ./mt 4
record fdr fdr-st_o2 ./st_o2 1
record fdr fdr-typed ./st_typed 3 1
FDR_CONFIG=func_duration_threshold_us=0:buffer_size=65536:buffer_max=1024 \
  record fdr fdr-big ./st "${ROUNDS:-100}" 1
record basic basic-st ./st 1
record basic basic-mt ./mt 4
record basic basic-unwind ./unwind 30
for base in fdr-st fdr-mt fdr-st_o2 fdr-typed fdr-big basic-st basic-mt basic-unwind; do
  compgen -G "$base.*" >/dev/null || { echo "make-traces.sh: no trace $base.*" >&2; exit 1; }
done
