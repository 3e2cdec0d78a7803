#!/usr/bin/env python3
"""Runs the allocator benchmarks one after another and prints one table (bench/README.md).

    allocator_bench_table.py --dir BUILD/bench --replay BUILD/bench/replay_bench [--min-time S]

Programs: allocator_bench (the caching allocator, and accel::raw_alloc on the simulated
hardware), allocator_bench_glibc / _mimalloc / _jemalloc (malloc + free). A program that was
not built (its library is not installed) gets a loud NOT BUILT row instead of a figure.
"""
import argparse
import json
import os
import subprocess
import sys


def run(program, min_time, extra=()):
    done = subprocess.run([program, f"--benchmark_min_time={min_time}",
                           "--benchmark_format=json", *extra], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()}")
    return {b["name"]: b for b in json.loads(done.stdout)["benchmarks"]}


def ns(bench):
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[bench.get("time_unit", "ns")]
    return bench["real_time"] * unit if bench["name"].endswith("real_time") else bench["cpu_time"] * unit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--replay", required=True)
    parser.add_argument("--min-time", default="0.3")
    args = parser.parse_args()
    rows = []
    caching = run(os.path.join(args.dir, "allocator_bench"), args.min_time)

    def row(what, name, benches, unit="ns/pair"):
        bench = benches.get(name)
        rows.append((what, f"{ns(bench):10.1f} {unit}" if bench else "missing"))

    def rate(what, name, benches):
        """Pairs per second over every thread (items_per_second, from wall time)."""
        bench = benches.get(name)
        rows.append((what, f"{bench['items_per_second'] / 1e6:10.2f} M pairs/s, all threads"
                     if bench else "missing"))

    rows.append(("== allocate+free pair on the published mix (64 sizes, 64 B - 8 MiB)", ""))
    row("caching allocator (DeviceCachingAllocator, no memory touched)", "BM_CachingPairMix", caching)
    row("accel::raw_alloc/raw_delete (public API, mockdev)", "BM_RawAllocPairMix", caching)
    for lib in ("glibc", "mimalloc", "jemalloc"):
        program = os.path.join(args.dir, f"allocator_bench_{lib}")
        if not os.path.exists(program):
            rows.append((f"{lib} malloc/free", f"NOT BUILT: lib{lib}-dev IS NOT INSTALLED"))
            continue
        system = run(program, args.min_time)
        row(f"{lib} malloc/free", "BM_SystemPairMix", system)
        rate(f"{lib} malloc/free, 1 thread", "BM_SystemPairMix", system)
        rate(f"{lib} malloc/free, 2 threads", "BM_SystemPairMix/real_time/threads:2", system)
    rows.append(("== caching allocator: pair latency vs cached free blocks (one stream)", ""))
    for n in (1024, 2048, 4096, 8192, 16384, 32768, 65536):
        row(f"{n:6d} cached blocks", f"BM_CachingPairCachedBlocks/{n}", caching)
    rows.append(("== caching allocator: threads (throughput over all threads)", ""))
    for arg, what in ((0, "two devices"), (1, "two streams of one device")):
        for threads in (1, 2):
            rate(f"{what}, {threads} thread{'s' if threads > 1 else ''}",
                f"BM_CachingTwoThreads/{arg}/real_time/threads:{threads}", caching)
    rows.append(("== accel replay throughput", ""))
    replay = run(args.replay, args.min_time)
    for name, what in (("BM_ReplaySnapshot/0", "tests/data/snapshot.json (476 events)"),
                       ("BM_ReplaySnapshot/1", "  + state at the peak (second pass)"),
                       ("BM_ReplaySynthetic/0", "synthetic, 200,000 events"),
                       ("BM_ReplaySynthetic/1", "  + state at the peak (second pass)")):
        bench = replay.get(name)
        rows.append((what, f"{bench['events_per_second'] / 1e6:10.2f} M events/s" if bench
                     else "missing"))
    width = max(len(w) for w, _ in rows)
    for what, figure in rows:
        print(f"{what:<{width}}  {figure}" if figure else what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
