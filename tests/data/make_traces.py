#!/usr/bin/env python3
"""Writes the replay test traces in this directory (run once; the outputs are committed).

snapshot.json: a PyTorch-shaped memory snapshot (segments + device_traces, one entry per
line) with two streams and a pattern that fragments: many blocks, every other one freed,
then larger requests that the holes cannot serve. rmm_log.csv: the same kind of pattern as
an RMM logging_resource_adaptor log. Sizes above 1 MiB are multiples of 2 MiB and the others
any size, so that the allocator always splits (docs/REPLAY.md, "Test traces") and the peak of
allocated bytes is the peak of the running sum of sizes rounded up to 512 bytes.
"""
import json
import random

MIB = 1 << 20


def pattern(rng, count):
    """(action, key, size, stream) tuples: allocations and frees in a fragmenting order."""
    events, live, key = [], [], 0

    def alloc(size, stream):
        nonlocal key
        key += 1
        live.append((key, size, stream))
        events.append(("alloc", key, size, stream))

    def free(i):
        k, size, stream = live.pop(i)
        events.append(("free", k, size, stream))

    for round_ in range(count):
        # Fill: a mix of small and large blocks on both streams.
        for _ in range(14):
            stream = rng.choice([0, 1])
            if rng.random() < 0.55:
                alloc(rng.randrange(1, 1 << 20), stream)  # small pool
            else:
                alloc(2 * MIB * rng.randrange(1, 6), stream)  # large pool, 2..10 MiB
        # Fragment: free every other live block.
        for i in range(len(live) - 1, -1, -2):
            free(i)
        # Larger requests that the holes cannot serve.
        for _ in range(3):
            alloc(2 * MIB * rng.randrange(6, 12), rng.choice([0, 1]))
        # Free some of the oldest.
        for _ in range(min(len(live), 8)):
            free(0)
    while live:
        free(len(live) - 1)
    return events


def write_snapshot(path):
    rng = random.Random(8)
    events = pattern(rng, 14)
    streams = {0: 0, 1: 94001172512768}  # the default stream and a side stream's handle
    address = {}
    next_addr = 139_800_000_000_000
    lines = []
    frame = '[{"filename": "train.py", "line": %d, "name": "forward"}]'
    # Two frees of blocks allocated before the ring started (the replay drops them).
    lines.append('{"action": "free_requested", "addr": 139700000000000, "size": 4096, '
                 '"stream": 0, "time_us": 1000, "frames": []}')
    lines.append('{"action": "free_completed", "addr": 139700000000000, "size": 4096, '
                 '"stream": 0, "time_us": 1001, "frames": []}')
    t = 2000
    for n, (action, key, size, stream) in enumerate(events):
        t += 7
        s = streams[stream]
        if action == "alloc":
            address[key] = next_addr
            next_addr += ((size + 511) // 512) * 512 + 4096
            if n % 40 == 0:  # the recorded allocator's own decisions: ignored by the replay
                lines.append('{"action": "segment_alloc", "addr": %d, "size": %d, "stream": %d, '
                             '"time_us": %d, "frames": []}' % (address[key], 20 * MIB, s, t))
            lines.append('{"action": "alloc", "addr": %d, "size": %d, "stream": %d, '
                         '"time_us": %d, "frames": %s}' % (address[key], size, s, t,
                                                           frame % (100 + n % 50)))
        else:
            lines.append('{"action": "free_requested", "addr": %d, "size": %d, "stream": %d, '
                         '"time_us": %d, "frames": []}' % (address[key], size, s, t))
            lines.append('{"action": "free_completed", "addr": %d, "size": %d, "stream": %d, '
                         '"time_us": %d, "frames": []}' % (address[key], size, s, t + 1))
    lines.append('{"action": "free_requested", "addr": 139700000004096, "size": 512, '
                 '"stream": 0, "time_us": %d, "frames": []}' % (t + 10))
    with open(path, "w") as f:
        f.write('{"segments": [\n')
        f.write('  {"device": 0, "address": 139700000000000, "total_size": 2097152, '
                '"stream": 0, "segment_type": "small", "allocated_size": 4608, '
                '"active_size": 4608, "requested_size": 4608, "blocks": [{"address": '
                '139700000000000, "size": 4096, "requested_size": 4096, "state": '
                '"active_allocated", "frames": []}]}\n')
        f.write('],\n"device_traces": [\n[\n')
        f.write(",\n".join(lines))
        f.write("\n]\n],\n")
        f.write('"allocator_settings": {"expandable_segments": false}\n}\n')


def write_rmm(path):
    rng = random.Random(6)
    events = pattern(rng, 12)
    streams = {0: "0x0", 1: "0x7f00aa001230"}
    address = {}
    next_addr = 0x7F4A2C000000
    rows = ["Thread,Time,Action,Pointer,Size,Stream"]
    t = 0
    for n, (action, key, size, stream) in enumerate(events):
        t += 13
        clock = "14:35:%02d.%06d" % (11 + t // 1_000_000, t % 1_000_000)
        if action == "alloc":
            if n % 50 == 25:  # what the logged program could not get: skipped
                rows.append("140229,%s,allocate failure,0x0,%d,%s" % (clock, 64 * MIB * 1024,
                                                                       streams[stream]))
            address[key] = next_addr
            next_addr += ((size + 255) // 256) * 256 + 0x10000
            rows.append("140229,%s,allocate,%#x,%d,%s" % (clock, address[key], size,
                                                          streams[stream]))
        else:
            rows.append("140229,%s,free,%#x,%d,%s" % (clock, address[key], size,
                                                      streams[stream]))
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    write_snapshot("snapshot.json")
    write_rmm("rmm_log.csv")
