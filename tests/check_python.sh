#!/usr/bin/env bash
# The Python binding's tests (bindings/python/tests, pytest) with the .venv of scripts/setup.sh:
# the cffi extension is generated and compiled against this build's libprofpack.so (as
# meson-python compiles it for `pip install`), then pytest runs under `python -X dev` with
# ResourceWarning an error.
set -euo pipefail
src=${PROFPACK_SOURCE:?}; build=${PROFPACK_BUILD:?}
py=${PROFPACK_VENV:-$src/.venv}/bin/python
"$py" -c 'import cffi, pytest' 2>/dev/null || { echo "skip: no cffi and pytest in .venv (run scripts/setup.sh)"; exit 77; }
# Every module of the package is one that pip install installs (bindings/python/meson.build).
for f in "$src"/bindings/python/profpack/*.py "$src/bindings/python/profpack/py.typed"; do
  grep -q "'profpack/$(basename "$f")'" "$src/bindings/python/meson.build" ||
    { echo "bindings/python/meson.build does not install profpack/$(basename "$f")"; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/pkg/profpack"
cp "$src"/bindings/python/profpack/*.py "$src/bindings/python/profpack/py.typed" "$tmp/pkg/profpack/"
"$py" "$src/bindings/python/ffi_build.py" "$src/include/profpack/profpack.h" "$tmp/_profpack.c" >/dev/null
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cc -shared -fPIC -O1 -I"$src/include" -I"$inc" "$tmp/_profpack.c" -L"$build/capi" -lprofpack \
  -Wl,-rpath,"$build/capi" -o "$tmp/pkg/profpack/_profpack$suffix"
cd "$tmp"
PYTHONPATH=$tmp/pkg "$py" -X dev -W error::ResourceWarning -m pytest -q -p no:cacheprovider \
  -W error::ResourceWarning -W error::pytest.PytestUnraisableExceptionWarning \
  "$src/bindings/python/tests"
