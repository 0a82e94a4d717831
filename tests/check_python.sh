#!/usr/bin/env bash
# The Python binding's tests (bindings/python/tests, pytest) with the .venv of scripts/setup.sh:
# the cffi extension is generated and compiled against this build's libprofpack.so (as
# meson-python compiles it for `pip install`), then pytest runs under `python -X dev` with
# ResourceWarning an error.
set -euo pipefail
src=${PROFPACK_SOURCE:?}; build=${PROFPACK_BUILD:?}
py=${PROFPACK_VENV:-$src/.venv}/bin/python
"$py" -c 'import cffi, pytest, build, mesonpy' 2>/dev/null || { echo "skip: no cffi, pytest, build and meson-python in .venv (run scripts/setup.sh)"; exit 77; }
# Every module of the package is one that pip install installs (bindings/python/meson.build).
for f in "$src"/bindings/python/profpack/*.py "$src/bindings/python/profpack/py.typed"; do
  grep -q "'profpack/$(basename "$f")'" "$src/bindings/python/meson.build" ||
    { echo "bindings/python/meson.build does not install profpack/$(basename "$f")"; exit 1; }
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# `pip install ./bindings/python` goes through bindings/python's in-tree backend, which runs
# meson-python on the repository root: build its sdist that way (meson setup and meson dist,
# no compiling; meson dist packs the git HEAD) beside the tests, and check what it holds.
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "$src is not a git checkout: meson dist (the sdist check) needs one"; exit 1; }
"$py" -m build --sdist --no-isolation --outdir "$tmp/dist" -Cbuild-dir="$tmp/sdist-build" \
  "$src/bindings/python" >"$tmp/sdist.log" 2>&1 &
sdist_pid=$!
bash "$src/bindings/python/dev_build.sh" "$py" "$src" "$build" "$tmp/pkg"
cd "$tmp"
rc=0
PYTHONPATH=$tmp/pkg "$py" -X dev -W error::ResourceWarning -m pytest -q -p no:cacheprovider \
  -W error::ResourceWarning -W error::pytest.PytestUnraisableExceptionWarning \
  "$src/bindings/python/tests" || rc=$?
wait "$sdist_pid" || { echo "the sdist through bindings/python failed:"; tail -20 "$tmp/sdist.log"; exit 1; }
version=$("$PROFPACK_REAL_CLI" --version | awk '{ print $2 }')
sdist=$tmp/dist/profpack-$version.tar.gz
[ -f "$sdist" ] || { echo "no $sdist:"; ls "$tmp/dist"; exit 1; }
tar xzf "$sdist" -O "profpack-$version/PKG-INFO" >"$tmp/PKG-INFO"
grep -qx "Name: profpack" "$tmp/PKG-INFO" || { echo "$sdist: PKG-INFO names no profpack"; exit 1; }
tar tzf "$sdist" >"$tmp/sdist.list"
for f in pyproject.toml meson.build bindings/python/pyproject.toml \
  bindings/python/backend/profpack_build.py bindings/python/ffi_build.py; do
  grep -qx "profpack-$version/$f" "$tmp/sdist.list" || { echo "$sdist has no $f"; exit 1; }
done
echo "sdist through bindings/python: $(basename "$sdist"), $(stat -c %s "$sdist") bytes"
exit $rc
