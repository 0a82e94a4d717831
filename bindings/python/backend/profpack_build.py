"""The PEP 517 build backend of bindings/python (`pip install ./bindings/python`).

The package is built by meson-python from the repository's Meson project: this module runs
meson-python's hooks (mesonpy) with the repository root, two levels up, as the working
directory, which is where mesonpy takes its source directory and pyproject.toml from. So
`pip install ./bindings/python` and `pip install .` at the root build the same wheel.

It needs the checkout around it: pip 21.3 and later build a local directory in place; an
older pip, or an sdist of bindings/python alone, has no root and stops with a message.
"""
import contextlib
import os
import pathlib

import mesonpy

ROOT = pathlib.Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def _at_root():
    if not (ROOT / "meson.build").is_file() or not (ROOT / "pyproject.toml").is_file():
        raise SystemExit(
            "profpack: bindings/python is built from the repository around it, and %s has no "
            "meson.build and pyproject.toml: install from a checkout with pip 21.3 or later "
            "(which builds in place), or run pip install on the repository root" % ROOT)
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(old)


def _settings(config_settings):
    """`config_settings` with a relative build directory made absolute (before the chdir)."""
    if not config_settings:
        return config_settings
    out = dict(config_settings)
    for key in ("build-dir", "builddir"):
        if isinstance(out.get(key), str):
            out[key] = os.path.abspath(out[key])
    return out


def get_requires_for_build_sdist(config_settings=None):
    with _at_root():
        return mesonpy.get_requires_for_build_sdist(config_settings)


def get_requires_for_build_wheel(config_settings=None):
    with _at_root():
        return mesonpy.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings=None):
    with _at_root():
        return mesonpy.get_requires_for_build_editable(config_settings)


def build_sdist(sdist_directory, config_settings=None):
    out, settings = os.path.abspath(sdist_directory), _settings(config_settings)
    with _at_root():
        return mesonpy.build_sdist(out, settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    out, settings = os.path.abspath(wheel_directory), _settings(config_settings)
    with _at_root():
        return mesonpy.build_wheel(out, settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    out, settings = os.path.abspath(wheel_directory), _settings(config_settings)
    with _at_root():
        return mesonpy.build_editable(out, settings, metadata_directory)
