# Sourced by the binding and README checks: installs this build into a fresh directory with
# `meson install --destdir`, as a user's `meson install` would lay it out, and points
# PKG_CONFIG_PATH at its profpack.pc. That is all the bindings get to find the library
# (meson writes the .pc relocatable: its prefix is relative to the .pc file). The programs
# then run with LD_LIBRARY_PATH naming the staged library directory, as a user's dynamic
# loader would find a library installed under /usr/local.
#   stage_install BUILD_DIR STAGE_DIR
stage_install() {
  local build=$1 stage=$2 pc
  meson install -C "$build" --no-rebuild --quiet --destdir "$stage" >/dev/null
  pc=$(find "$stage" -name profpack.pc -print -quit)
  [ -n "$pc" ] || { echo "meson install wrote no profpack.pc"; return 1; }
  grep -q '^prefix=${pcfiledir}' "$pc" || {
    echo "profpack.pc is not relocatable: reconfigure with -Dpkgconfig.relocatable=true"
    return 1
  }
  export PKG_CONFIG_PATH=${pc%/*}
  export LD_LIBRARY_PATH
  LD_LIBRARY_PATH=$(pkg-config --variable=libdir profpack)
}
