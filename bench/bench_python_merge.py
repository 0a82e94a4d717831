"""The Dask half of bench/bench_python_merge.sh (not a test): merges the profiles listed in a
file on a distributed.LocalCluster of 2 worker processes (1 thread each) with
profpack.dask.merge, and prints one JSON line: the merge's wall time (the cluster already up,
as a fleet's is), the cluster's start time, each worker's peak RSS (VmHWM) before and after
the merge, this process's (the client and scheduler), and the merged .ppk's size.

    python bench/bench_python_merge.py LIST OUT.ppk [SPLIT_EVERY [FILES_PER_TASK]]

LIST holds one path a line. Needs profpack importable (the .sh builds it) and distributed.
"""
import json
import os
import sys
import time


def peak_kb():
    """This process's peak resident set (VmHWM) in KB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def warm():
    """Imports what a merge task imports, so that the baseline counts it."""
    import profpack.dask  # noqa: F401
    return peak_kb()


def main():
    import distributed
    import profpack
    import profpack.dask

    with open(sys.argv[1]) as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    out = sys.argv[2]
    split_every = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    per_task = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        started = time.perf_counter() - t0
        base = client.run(warm)
        t1 = time.perf_counter()
        with profpack.dask.merge(paths, split_every=split_every, files_per_task=per_task) as merged:
            wall = time.perf_counter() - t1
            merged.write_file(out, profpack.Format.PPK)
            ir_bytes = merged.info().ir_bytes
        after = client.run(peak_kb)
    print(json.dumps({
        "inputs": len(paths), "split_every": split_every, "files_per_task": per_task, "wall_s": round(wall, 4),
        "cluster_start_s": round(started, 3),
        "worker_base_kb": sorted(base.values()), "worker_peak_kb": sorted(after.values()),
        "client_peak_kb": peak_kb(), "merged_ppk_bytes": os.path.getsize(out),
        "merged_ir_bytes": ir_bytes}))


if __name__ == "__main__":
    main()
