"""Distributed merge with Dask: profiles are read and merged in parallel, in a tree.

Merge is associative, so many profiles (a fleet's, an archive's members) map and tree-reduce:
each leaf reads `files_per_task` files and merges them into a `.ppk`, each inner node merges
up to `split_every` `.ppk`s into one, and only `.ppk` bytes travel between workers (compact,
and readable by any profpack). A leaf of several files keeps the number of tasks, and the
scheduler's cost per task, well below the number of files::

    from distributed import Client
    import profpack.dask
    with Client(n_workers=4) as client:
        with profpack.dask.merge(paths) as merged:
            merged.write_file("fleet.pb.gz")

Memory per worker is that of the profiles of one node: a leaf holds one input and the merge
so far (profpack.Merger), an inner node at most `split_every` merged results and their sum. Spark and Ray do the same with their own primitives: map each path to
``profpack.read(path).write_memory()`` and reduce pairs with :func:`merge_ppk` (Spark:
``rdd.map(to_ppk).treeReduce(lambda a, b: merge_ppk([a, b]))``; Ray: remote tasks over
chunks of the list).
"""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Union

from ._formats import Format
from ._merge import Merger
from ._merge import merge as _merge
from ._profile import Profile, read, read_memory

PathArg = Union[str, bytes, "os.PathLike[str]"]


def to_ppk(path: PathArg) -> bytes:
    """Reads one profile (any format profpack reads) and returns it as `.ppk` bytes."""
    with read(path) as p:
        return p.write_memory(Format.PPK)


def merge_files(paths: Sequence[PathArg]) -> bytes:
    """Reads `paths` one at a time and returns their merge as `.ppk` bytes (memory: one
    input and the merged result)."""
    with Merger() as m:
        for path in paths:
            with read(path) as p:
                m.add(p, name=os.fsdecode(path))
        with m.finish() as merged:
            return merged.write_memory(Format.PPK)


def merge_ppk(parts: Sequence[bytes]) -> bytes:
    """Merges `.ppk` byte strings (one or more) into one `.ppk`."""
    profiles: List[Profile] = []
    try:
        for b in parts:
            profiles.append(read_memory(b))
        if len(profiles) == 1:
            return profiles[0].write_memory(Format.PPK)
        with _merge(profiles) as m:
            return m.write_memory(Format.PPK)
    finally:
        for p in profiles:
            p.close()


def merge_graph(paths: Sequence[PathArg], split_every: int = 8,
                files_per_task: int = 16) -> Any:
    """The Dask graph (a ``dask.delayed`` object) whose result is the merge of `paths` as
    `.ppk` bytes: leaves that read and merge `files_per_task` paths each (1: one read per
    path, :func:`to_ppk`), then merges of at most `split_every` results per node until one
    is left."""
    import dask  # imported here: the rest of profpack needs no Dask

    if not paths:
        raise ValueError("merge needs at least one profile")
    if split_every < 2:
        raise ValueError("split_every must be at least 2")
    if files_per_task < 1:
        raise ValueError("files_per_task must be at least 1")
    names = [os.fspath(p) for p in paths]
    if files_per_task == 1:
        level = [dask.delayed(to_ppk, pure=True)(p) for p in names]
    else:
        level = [dask.delayed(merge_files, pure=True)(names[i:i + files_per_task])
                 for i in range(0, len(names), files_per_task)]
    while len(level) > 1:
        level = [dask.delayed(merge_ppk, pure=True)(level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    return level[0]


def merge(paths: Sequence[PathArg], split_every: int = 8, scheduler: Optional[Any] = None,
          files_per_task: int = 16, **compute_kwargs: Any) -> Profile:
    """The merge of `paths` as a profile (to close), computed by Dask: on the current
    ``distributed.Client`` if there is one, else on `scheduler` (any of ``dask.compute``'s),
    else Dask's default. Equal to ``profpack.merge`` of the same files, in any order."""
    import dask

    kwargs = dict(compute_kwargs)
    if scheduler is not None:
        kwargs["scheduler"] = scheduler
    (ppk,) = dask.compute(merge_graph(paths, split_every, files_per_task), **kwargs)
    return read_memory(ppk)
