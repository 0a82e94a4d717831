"""Distributed merge with Dask: not written yet (see bindings/python/README.md)."""
