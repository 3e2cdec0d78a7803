#!/usr/bin/env python3
"""accel replay's figure tests: each case reads a trace itself (json / csv modules), computes
what the replay must print, runs accel-replay and compares.

    replay_test.py --replay BIN --data DIR --converter SCRIPT --work DIR CASE

The allocator rounds every request up to a multiple of 512 bytes, and the test traces are
built so that it always splits (sizes above 1 MiB are multiples of 2 MiB), so the peak of
allocated bytes is the peak of the running sum of rounded sizes, and the peak of requested
bytes that of the raw sizes. Reserved bytes depend on the whole policy; they are checked
against the simulated driver's own count and for their granularity.
"""
import argparse
import csv
import json
import os
import pickle
import subprocess
import sys

MIB = 1 << 20
GRANULE = 2 * MIB
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what)


def equal(actual, expected, what):
    check(actual == expected, f"{what}: got {actual!r}, expected {expected!r}")


def rounded(size):
    return 0 if size == 0 else max(512, (size + 511) // 512 * 512)


class Expected:
    """The replay's events, read independently of accel-replay's readers. `window`: the trace
    may start after allocations were made (a snapshot), so a free of an address it never
    allocated is a block from before the window, counted once; otherwise (an RMM log) the
    test files have none."""

    def __init__(self, window):
        self.window = window
        self.events = []  # (kind, size, stream value, line)
        self.allocations = self.frees = self.unmatched = self.failed = self.ignored = 0
        self.streams = [0]
        self.live = {}
        self.state = {}  # address -> "live", "requested" (free_requested seen) or "freed"

    def alloc(self, addr, size, stream, line):
        assert self.state.get(addr) not in ("live", "requested"), f"line {line}: reused {addr}"
        if stream not in self.streams:
            self.streams.append(stream)
        self.live[addr] = (size, stream)
        self.state[addr] = "live"
        self.allocations += 1
        self.events.append(("alloc", size, stream, line))

    def _emit_free(self, addr, line):
        size, stream = self.live.pop(addr)
        self.frees += 1
        self.events.append(("free", size, stream, line))

    def free(self, addr, line):
        """free_requested, free, or an RMM free."""
        state = self.state.get(addr)
        if state is None:
            assert self.window, f"line {line}: free of {addr}, never allocated"
            self.unmatched += 1
            self.state[addr] = "requested"
            return
        assert state == "live", f"line {line}: free of {addr}, not live"
        self._emit_free(addr, line)
        self.state[addr] = "requested" if self.window else "freed"

    def free_completed(self, addr, line):
        state = self.state.get(addr)
        if state is None:
            self.unmatched += 1  # allocated and its free requested before the window
        elif state == "live":
            self._emit_free(addr, line)  # only the completion was logged
        else:
            assert state == "requested", f"line {line}: second completion of {addr}"
        self.state[addr] = "freed"

    def peaks(self):
        """(peak requested, peak allocated, first event index at the allocated peak)."""
        requested = allocated = 0
        peak_requested = peak_allocated = 0
        peak_index = 0
        for i, (kind, size, _, _) in enumerate(self.events):
            sign = 1 if kind == "alloc" else -1
            requested += sign * size
            allocated += sign * rounded(size)
            peak_requested = max(peak_requested, requested)
            if allocated > peak_allocated:
                peak_allocated, peak_index = allocated, i
        return peak_requested, peak_allocated, peak_index


def read_snapshot(path, device=0):
    with open(path) as f:
        text = f.read()
    data = json.loads(text)
    # One entry per line in these files: the n-th line of device `device` holding an entry.
    lines, depth_device = [], -1
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped == "[":
            depth_device += 1
        if stripped.startswith('{"action"') and depth_device == device:
            lines.append(number)
    expected = Expected(window=True)
    for entry, line in zip(data["device_traces"][device], lines):
        action = entry["action"]
        if action == "alloc":
            expected.alloc(entry["addr"], entry["size"], entry["stream"], line)
        elif action in ("free_requested", "free"):
            expected.free(entry["addr"], line)
        elif action == "free_completed":
            expected.free_completed(entry["addr"], line)
        else:
            expected.ignored += 1
    return expected


def read_rmm(path):
    expected = Expected(window=False)
    with open(path, newline="") as f:
        for number, row in enumerate(csv.DictReader(f), start=2):
            if row["Action"] == "allocate failure":
                expected.failed += 1
            elif row["Action"] == "allocate":
                expected.alloc(int(row["Pointer"], 16), int(row["Size"]), int(row["Stream"], 16),
                               number)
            else:
                expected.free(int(row["Pointer"], 16), number)
    return expected


def replay(args, *options, expect_exit=0):
    command = [args.replay, *options, "--no-progress"]
    done = subprocess.run(command, capture_output=True, text=True)
    if expect_exit is not None and done.returncode != expect_exit:
        FAILURES.append(f"{' '.join(command)}: exit {done.returncode}, expected {expect_exit}\n"
                        f"{done.stdout}{done.stderr}")
    return done


def replay_json(args, *options, expect_exit=0):
    done = replay(args, *options, "--json", expect_exit=expect_exit)
    return json.loads(done.stdout)


def check_figures(args, trace, expected, *extra):
    report = replay_json(args, trace, "--capacity", "1GiB", *extra)
    peak_requested, peak_allocated, peak_index = expected.peaks()
    equal(report["events"], len(expected.events), "events")
    equal(report["events_replayed"], len(expected.events), "events replayed")
    equal(report["allocations"], expected.allocations, "allocations")
    equal(report["frees"], expected.frees, "frees")
    equal(report["unmatched_frees"], expected.unmatched, "unmatched frees")
    equal(report["failed_allocations"], expected.failed, "failed allocations")
    equal(report["ignored_entries"], expected.ignored, "ignored entries")
    equal(report["streams"], expected.streams, "streams")
    check(len(expected.streams) == 2, "the test trace has two streams")
    equal(report["peak_requested_bytes"], peak_requested, "peak requested")
    equal(report["peak_allocated_bytes"], peak_allocated, "peak allocated")
    at_peak = report["at_peak"]
    equal(at_peak["event_index"], peak_index, "event at the peak")
    equal(at_peak["line"], expected.events[peak_index][3], "line at the peak")
    equal(at_peak["allocated_bytes"], peak_allocated, "allocated at the peak")
    equal(report["peak_reserved_bytes"], report["driver_peak_bytes"],
          "peak reserved = the simulated driver's peak")
    equal(report["peak_reserved_bytes"] % GRANULE, 0, "peak reserved in granules")
    check(report["peak_reserved_bytes"] >= peak_allocated, "reserved >= allocated")
    gap = at_peak["reserved_bytes"] - at_peak["allocated_bytes"]
    equal(at_peak["reserved_minus_allocated_bytes"], gap, "reserved - allocated at the peak")
    check(gap > 0, "the fragmenting trace leaves reserved-but-unallocated bytes at the peak")
    check(0 < at_peak["largest_free_block_bytes"] <= gap, "largest free block within the gap")
    equal(at_peak["largest_free_block_bytes"] % 512, 0, "largest free block in 512-byte units")
    equal(report["oom"], None, "no OOM at 1 GiB")
    # The text form says the same.
    text = replay(args, trace, "--capacity", "1GiB", *extra).stdout
    check(f"peak allocated: {peak_allocated} bytes" in text, "text: peak allocated")
    check(f"events replayed: {len(expected.events)} of {len(expected.events)}" in text,
          "text: events")
    check("result: no out of memory\n" in text, "text: no OOM")


def check_min_capacity(args, trace):
    report = replay_json(args, trace, "--find-min-capacity")
    found = report["min_capacity_bytes"]
    equal(report["capacity_bytes"], found, "the report runs at the minimum capacity")
    equal(report["oom"], None, "no OOM at the minimum capacity")
    # Linear search over the same capacities: 2 MiB, 4 MiB, ... up to the first that runs.
    granules = 1
    while True:
        result = replay_json(args, trace, "--capacity", str(granules * GRANULE),
                             expect_exit=None)
        if result["oom"] is None:
            break
        check(result["events_replayed"] < result["events"], "an OOM stops the replay")
        granules += 1
    equal(granules * GRANULE, found, "--find-min-capacity = the linear search")


def case_compare(args):
    trace = os.path.join(args.data, "snapshot.json")
    configs = ["", "expandable_segments:True"]
    table = replay(args, trace, "--capacity", "1GiB", "--compare", *configs).stdout.split("\n")
    equal(table[1].split()[:3], ["config", "capacity", "peak"], "table header")
    report = replay_json(args, trace, "--capacity", "1GiB", "--compare", *configs)
    equal([r["config"] for r in report["results"]], configs, "configurations in order")
    for row, config, result in zip(table[2:4], ["(default)", configs[1]], report["results"]):
        single = replay_json(args, trace, "--capacity", "1GiB", "--config", config_arg(config))
        fields = row.split()
        equal(fields[0], config, "row name")
        for column, key in [(2, "peak_allocated_bytes"), (3, "peak_reserved_bytes")]:
            equal(int(fields[column]), result[key], f"{config}: table {key}")
            equal(result[key], single[key], f"{config}: {key} as a single run")
        equal(int(fields[4]), result["at_peak"]["reserved_minus_allocated_bytes"],
              f"{config}: table reserved - allocated")


def config_arg(name):
    return "" if name == "(default)" else name


def case_oom(args):
    trace = os.path.join(args.data, "snapshot.json")
    expected = read_snapshot(trace)
    capacity = 64 * MIB
    report = replay_json(args, trace, "--capacity", str(capacity), expect_exit=1)
    oom = report["oom"]
    check(oom is not None, "an OOM at 64 MiB")
    if oom is None:
        return
    index = oom["event_index"]
    kind, size, stream, line = expected.events[index]
    equal(kind, "alloc", "the OOM event is an allocation")
    equal(oom["line"], line, "the OOM line")
    equal(oom["requested_bytes"], size, "the OOM size")
    equal(oom["stream"], stream, "the OOM stream")
    equal(report["events_replayed"], index, "events replayed before the OOM")
    check(oom["message"].startswith("CUDA out of memory. Tried to allocate"), "PyTorch's message")
    live = 0
    for i, (k, s, _, _) in enumerate(expected.events):
        live += rounded(s) if k == "alloc" else -rounded(s)
        if live > capacity:
            check(index <= i, f"OOM at or before the first event over capacity ({i})")
            break
    text = replay(args, trace, "--capacity", str(capacity), expect_exit=1).stdout
    check(f"first OOM: event {index} ({trace}:{line}): {size} bytes" in text, "text: first OOM")


def snapshot_dicts():
    """A snapshot as torch.cuda.memory._snapshot() returns it: plain dicts, lists, tuples."""
    def frames(n):
        return [{"filename": "model.py", "line": 10 + n, "name": "forward"}]
    side = 140_000_000_000
    trace1 = []
    live = []
    addr = 1 << 40
    for n in range(60):
        size = (n % 7 + 1) * 2 * MIB if n % 3 else 1000 + n
        stream = side if n % 2 else 0
        trace1.append({"action": "alloc", "addr": addr, "size": size, "stream": stream,
                       "time_us": n, "frames": frames(n)})
        live.append((addr, size, stream))
        addr += 32 * MIB
        if n % 4 == 3:
            a, s, st = live.pop(0)
            trace1.append({"action": "free_requested", "addr": a, "size": s, "stream": st,
                           "time_us": n, "frames": []})
            trace1.append({"action": "free_completed", "addr": a, "size": s, "stream": st,
                           "time_us": n, "frames": []})
    return {
        "segments": [{"device": 1, "address": 1 << 40, "total_size": 20 * MIB, "stream": 0,
                      "segment_type": "large", "blocks": [{"size": 2 * MIB,
                                                           "state": "active_allocated"}]}],
        "device_traces": [[{"action": "segment_alloc", "addr": 5, "size": 2 * MIB, "stream": 0,
                            "time_us": 1, "frames": []}], trace1],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": None, "max_split_size": -1,
                               "roundup_power2_divisions": (1, 1, 2)},
        "external_annotations": [],
    }


def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def case_converter(args):
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, "snapshot.pickle")
    target = os.path.join(args.work, "snapshot.json")
    data = snapshot_dicts()
    with open(source, "wb") as f:
        pickle.dump(data, f)
    done = subprocess.run([sys.executable, args.converter, source, target], capture_output=True,
                          text=True)
    equal(done.returncode, 0, f"converter exit status ({done.stderr})")
    with open(target) as f:
        converted = json.load(f)
    equal(converted, plain(data), "the JSON holds the pickle's data")
    expected = read_snapshot(target, device=1)
    equal(len(expected.events), 60 + 15, "events the test built (60 allocations, 15 frees)")
    check_figures(args, target, expected, "--device", "1")


class Hostile:
    def __reduce__(self):
        return (os.system, ("touch hostile_marker",))


def case_converter_rejects_code(args):
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, "hostile.pickle")
    marker = os.path.join(args.work, "hostile_marker")
    if os.path.exists(marker):
        os.remove(marker)  # from an earlier run, so that this run's check means something
    with open(source, "wb") as f:
        pickle.dump({"device_traces": [[]], "x": Hostile()}, f)
    done = subprocess.run([sys.executable, args.converter, source,
                           os.path.join(args.work, "out.json")], capture_output=True, text=True,
                          cwd=args.work)
    equal(done.returncode, 2, "converter exit status")
    equal(done.stderr, f"convert_memory_snapshot: {source}: refusing to load posix.system: a "
          "memory snapshot holds only plain dicts, lists, strings and numbers\n", "message")
    check(not os.path.exists(marker), "nothing ran")


def case_pickle_names_converter(args):
    """A pickle given to the replay: exit 2 and an error naming the converter by its installed
    name, which is a program beside accel-replay (as in an install) that turns the pickle into
    a snapshot the replay reads."""
    os.makedirs(args.work, exist_ok=True)
    source = os.path.join(args.work, "snap.pickle")
    target = os.path.join(args.work, "snap.json")
    if os.path.exists(target):
        os.remove(target)  # from an earlier run, so that this run's check means something
    data = snapshot_dicts()
    with open(source, "wb") as f:
        pickle.dump(data, f)
    done = replay(args, source, "--capacity", "1GiB", expect_exit=2)
    equal(done.stdout, "", "stdout")
    equal(done.stderr,
          f"accel replay: {source}: a Python pickle (torch.cuda.memory._dump_snapshot writes "
          f"one), not a JSON snapshot or an RMM log: convert it first with "
          f"`accel-convert-memory-snapshot {source} {target}` (installed beside accel; "
          f"tools/convert_memory_snapshot.py in the source tree), then replay the JSON file\n",
          "message")
    converter = os.path.join(os.path.dirname(args.replay), "accel-convert-memory-snapshot")
    check(os.access(converter, os.X_OK), f"{converter} is an executable beside accel-replay")
    done = subprocess.run([converter, source, target], capture_output=True, text=True)
    equal(done.returncode, 0, f"converter exit status ({done.stderr})")
    check_figures(args, target, read_snapshot(target, device=1), "--device", "1")


def main():
    parser = argparse.ArgumentParser()
    for option in ("--replay", "--data", "--converter", "--work"):
        parser.add_argument(option, required=True)
    parser.add_argument("case")
    args = parser.parse_args()
    snapshot = os.path.join(args.data, "snapshot.json")
    rmm = os.path.join(args.data, "rmm_log.csv")
    cases = {
        "snapshot_figures": lambda: check_figures(args, snapshot, read_snapshot(snapshot)),
        "rmm_figures": lambda: check_figures(args, rmm, read_rmm(rmm)),
        "snapshot_min_capacity": lambda: check_min_capacity(args, snapshot),
        "rmm_min_capacity": lambda: check_min_capacity(args, rmm),
        "compare": lambda: case_compare(args),
        "oom": lambda: case_oom(args),
        "converter": lambda: case_converter(args),
        "converter_rejects_code": lambda: case_converter_rejects_code(args),
        "pickle_names_converter": lambda: case_pickle_names_converter(args),
    }
    cases[args.case]()
    for failure in FAILURES:
        print(failure, file=sys.stderr)
    print(f"{args.case}: {'FAILED' if FAILURES else 'passed'}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
