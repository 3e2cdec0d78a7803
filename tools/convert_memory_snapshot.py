#!/usr/bin/env python3
"""Converts PyTorch's pickled memory snapshot to the JSON `accel replay` reads.

    python3 convert_memory_snapshot.py snapshot.pickle snapshot.json

The input is what torch.cuda.memory._dump_snapshot(path) writes: a pickle of plain dicts,
lists, strings and numbers ({"segments": [...], "device_traces": [[...], ...], ...}).
Torch is not needed. Unpickling can run code named in the file, so this script refuses
every class or function a pickle names (only the plain types are rebuilt): a snapshot that
needs one is not a snapshot, and a hostile file cannot run anything. Tuples become lists,
bytes become text (UTF-8, undecodable bytes replaced); every key and value is kept.
Exit status: 0 written, 2 unreadable or unsafe input (one line on stderr naming the file).
"""
import io
import json
import pickle
import sys


class PlainUnpickler(pickle.Unpickler):
    """Rebuilds only the built-in plain types; refuses every named class or function."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(
            f"refusing to load {module}.{name}: a memory snapshot holds only plain dicts, "
            "lists, strings and numbers")


def plain(value):
    """The value with JSON's types: tuples as lists, bytes as text, keys as strings."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value


def convert(source, target):
    with open(source, "rb") as f:
        data = PlainUnpickler(io.BufferedReader(f)).load()
    if not isinstance(data, dict):
        raise ValueError(f"expected a dict at the top, got {type(data).__name__}")
    if "device_traces" not in data:
        raise ValueError("no device_traces (record the snapshot with "
                         "torch.cuda.memory._record_memory_history() on)")
    data = plain(data)
    with open(target, "w") as f:
        # One trace entry per line, so that accel replay's line numbers point at entries.
        f.write("{")
        keys = list(data)
        for i, key in enumerate(keys):
            f.write(json.dumps(key) + ": ")
            if key == "device_traces":
                f.write("[\n")
                for d, entries in enumerate(data[key]):
                    f.write("[\n" + ",\n".join(json.dumps(e) for e in entries) + "\n]")
                    f.write(",\n" if d + 1 < len(data[key]) else "\n")
                f.write("]")
            else:
                f.write(json.dumps(data[key]))
            f.write(",\n" if i + 1 < len(keys) else "\n")
        f.write("}\n")


def main(argv):
    if len(argv) != 3:
        print("usage: convert_memory_snapshot.py SNAPSHOT.pickle OUT.json", file=sys.stderr)
        return 2
    try:
        convert(argv[1], argv[2])
    except (OSError, pickle.UnpicklingError, ValueError, EOFError) as e:
        print(f"convert_memory_snapshot: {argv[1]}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
