"""``python -m profpack COMMAND``: what the binding adds to the profpack CLI.

    python -m profpack export-parquet ARCHIVE OUT_DIR [--partition-by KEY]... [--stacks]
                                      [--overwrite]

export-parquet writes an archive's members, with their labels, as Parquet datasets under
OUT_DIR (functions/, and stacks/ with --stacks), Hive-partitioned by the label keys given
(profpack.parquet.export_archive; needs pyarrow, the profpack[arrow] extra).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from ._errors import Error


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m profpack")
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export-parquet", help="an archive's members as Parquet datasets",
                        description="Writes the members of ARCHIVE (.ppka) with their labels as "
                        "Parquet datasets OUT_DIR/functions (per member, function and event: "
                        "self and inclusive cost) and, with --stacks, OUT_DIR/stacks, "
                        "Hive-partitioned by the label keys of --partition-by.")
    ex.add_argument("archive")
    ex.add_argument("out_dir")
    ex.add_argument("--partition-by", action="append", default=[], metavar="KEY",
                    help="a label key (or format) to partition by (repeatable, in order)")
    ex.add_argument("--stacks", action="store_true", help="also write the call stacks")
    ex.add_argument("--overwrite", action="store_true",
                    help="replace files of the same names in OUT_DIR instead of refusing")
    return ap


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    from . import parquet

    try:
        written = parquet.export_archive(
            args.archive, args.out_dir, partition_by=args.partition_by, stacks=args.stacks,
            existing_data_behavior="overwrite_or_ignore" if args.overwrite else "error")
        for name, path in written.items():
            rows = parquet.read_dataset(path).count_rows() if os.path.isdir(path) else 0
            print("%s: %d rows in %s" % (name, rows, path))
    # profpack's errors, pyarrow's (ArrowInvalid is a ValueError: a directory not empty), no
    # pyarrow, a full disk.
    except (Error, ValueError, ImportError, OSError) as e:
        msg = str(e)
        print(msg if msg.startswith("profpack") else "profpack: " + msg, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
