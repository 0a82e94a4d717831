# Sourced by the binding and README checks: installs this build into a fresh directory with
# `meson install --destdir`, as a user's `meson install` would lay it out, and points
# PKG_CONFIG_PATH at its profpack.pc. That is all the bindings get to find the library
# (meson writes the .pc relocatable: its prefix is relative to the .pc file). Nothing else is
# set, as on a newcomer's machine: no LD_LIBRARY_PATH, no ldconfig. Programs find the library
# through the RUNPATH that `pkg-config --libs profpack` adds, the CLI through its own.
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
  unset LD_LIBRARY_PATH
  STAGED_CLI=$(find "$stage" -path '*/bin/profpack' -print -quit)
}
