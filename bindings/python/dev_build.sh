#!/usr/bin/env bash
# Builds the binding beside a meson build tree, without pip: the package's modules and the cffi
# extension compiled against BUILD/capi/libprofpack.so (found through a RUNPATH) into
# OUT/profpack. Used by tests/check_python.sh and bench/bench_python_merge.sh; put OUT on
# PYTHONPATH.   bash bindings/python/dev_build.sh PYTHON SOURCE_DIR BUILD_DIR OUT
set -euo pipefail
py=$1 src=$2 build=$3 out=$4
mkdir -p "$out/profpack"
cp "$src"/bindings/python/profpack/*.py "$src/bindings/python/profpack/py.typed" "$out/profpack/"
"$py" "$src/bindings/python/ffi_build.py" "$src/include/profpack/profpack.h" "$out/_profpack.c" \
  >/dev/null
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cc -shared -fPIC -O1 -I"$src/include" -I"$inc" "$out/_profpack.c" -L"$build/capi" -lprofpack \
  -Wl,-rpath,"$build/capi" -o "$out/profpack/_profpack$suffix"
