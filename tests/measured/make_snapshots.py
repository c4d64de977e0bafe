#!/usr/bin/env python3
"""Writes small PyTorch CUDA memory snapshots for the tests and the fuzzer.

These fixtures are WRITTEN FROM THE FORMAT, NOT RECORDED on a GPU: the dict layout follows
torch/csrc/cuda/Module.cpp (_cuda_memorySnapshot) and what torch/cuda/_memory_viz.py and
torch/utils/viz/MemoryViz.js read ("segments" with their "blocks", "device_traces" with one
list of events per device, "allocator_settings"), pickled as torch.cuda.memory._dump_snapshot()
pickles it (pickle.dump, protocol 4 here). A snapshot recorded on a real GPU may hold keys and
actions these lack; the reader ignores keys it does not need.

  tests/measured/make_snapshots.py          rewrite tests/fixtures/memory-snapshots/*.pickle
  tests/measured/make_snapshots.py --seeds  also write fuzz/seeds/snapshot/

Prints each fixture's expected figures, computed here as the viewer computes them
(process_alloc_data): the tests hold the same numbers.
"""
import os
import pickle
import sys

MiB = 1 << 20
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "memory-snapshots")

FRAMES = [{"filename": "train.py", "line": 42, "name": "step"},
          {"filename": "torch/nn/modules/linear.py", "line": 125, "name": "forward"}]


def event(action, addr, size, time_us, frames=()):
    return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": time_us,
            "frames": list(frames)}


def block(size, requested, state, address):
    return {"address": address, "size": size, "requested_size": requested, "state": state,
            "frames": FRAMES if state == "active_allocated" else []}


def segment(device, address, blocks, pool=(0, 0)):
    total = sum(b["size"] for b in blocks)
    active = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
    return {"device": device, "address": address, "total_size": total, "allocated_size": active,
            "active_size": active, "requested_size": sum(b["requested_size"] for b in blocks),
            "stream": 0, "segment_type": "large", "segment_pool_id": pool,
            "is_expandable": False, "frames": [], "blocks": blocks}


def contiguous(address, specs):
    """Blocks laid end to end from `address`, as the allocator splits a segment."""
    out = []
    for size, requested, state in specs:
        out.append(block(size, requested, state, address))
        address += size
    return out


SETTINGS = {"PYTORCH_CUDA_ALLOC_CONF": None, "max_split_size": -1,
            "garbage_collection_threshold": 0.0, "expandable_segments": False,
            "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": False,
            "pinned_use_cuda_host_register": False, "roundup_power2_divisions": {"1": 0}}


def train_step():
    """A training step: weights (8 MiB) and a 1 MiB buffer alive before recording; forward
    activations (4, 6 MiB) and logits (2 MiB); gradients (8 MiB); an optimizer temporary
    (4 MiB). The 1 MiB buffer is freed in the trace without its alloc."""
    w, s2, old = 0x7F0000000000, 0x7F0002000000, 0x7F0004000000
    a1, a2, logits, grads, tmp = s2, s2 + 4 * MiB, s2 + 10 * MiB, s2 + 12 * MiB, s2 + 20 * MiB
    trace = [
        event("segment_alloc", s2, 32 * MiB, 1000),
        event("alloc", a1, 4 * MiB, 1010, FRAMES),
        event("alloc", a2, 6 * MiB, 1020, FRAMES),
        event("alloc", logits, 2 * MiB, 1030, FRAMES),
        event("free_requested", logits, 2 * MiB, 1040),
        event("free_completed", logits, 2 * MiB, 1041),
        event("alloc", grads, 8 * MiB, 1050, FRAMES),
        event("free_completed", a2, 6 * MiB, 1060),
        event("free_completed", a1, 4 * MiB, 1070),
        event("free_completed", old, 1 * MiB, 1080),
        event("alloc", tmp, 4 * MiB, 1090, FRAMES),
        event("free_completed", tmp, 4 * MiB, 1100),
        event("segment_free", old, 2 * MiB, 1110),
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": 1120, "frames": []},
    ]
    segments = [
        segment(0, w, contiguous(w, [(8 * MiB, 8 * MiB - 512, "active_allocated")])),
        segment(0, s2, contiguous(s2, [(4 * MiB, 4 * MiB, "inactive"),
                                       (6 * MiB, 6 * MiB, "inactive"),
                                       (2 * MiB, 2 * MiB, "inactive"),
                                       (8 * MiB, 8 * MiB, "active_allocated"),
                                       (12 * MiB, 0, "inactive")])),
    ]
    return {"segments": segments, "device_traces": [trace], "allocator_settings": SETTINGS}


def segments_only():
    """A snapshot taken without a trace (device_traces holds an empty list): the curve is one
    point, the active blocks of the segments."""
    base = 0x7F1000000000
    blocks = contiguous(base, [(1 * MiB, 1000000, "active_allocated"),
                               (512 * 1024, 0, "inactive"),
                               (512 * 1024, 500000, "active_pending_free")])
    return {"segments": [segment(0, base, blocks)], "device_traces": [[]],
            "allocator_settings": SETTINGS}


def two_devices():
    """Device 1 has the trace; device 0 only a segment: the reader picks device 1."""
    d0, d1 = 0x7F2000000000, 0x7F3000000000
    trace1 = [event("segment_alloc", d1, 2 * MiB, 5), event("alloc", d1, 1 * MiB, 10),
              event("alloc", d1 + MiB, 1 * MiB, 20), event("free_completed", d1, 1 * MiB, 30)]
    segments = [segment(0, d0, contiguous(d0, [(2 * MiB, 2 * MiB, "active_allocated")])),
                segment(1, d1, contiguous(d1, [(1 * MiB, 1 * MiB, "inactive"),
                                               (1 * MiB, 1 * MiB, "active_allocated")]))]
    return {"segments": segments, "device_traces": [[], trace1], "allocator_settings": SETTINGS}


def expected(snapshot, device):
    """Peak active bytes as MemoryViz.js process_alloc_data computes them (before-trace level
    included)."""
    live, level, unseen, curve = {}, 0, 0, []
    for e in snapshot["device_traces"][device] if device < len(snapshot["device_traces"]) else []:
        if e["action"] == "alloc":
            live[e["addr"]] = e["size"]
            curve.append(e["size"])
        elif e["action"] in ("free_completed", "free"):
            size = live.pop(e["addr"], None)
            if size is None:
                unseen += e["size"]
                size = e["size"]
            curve.append(-size)
    for seg in snapshot["segments"]:
        if seg["device"] != device:
            continue
        for b in seg["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in live:
                level += b["requested_size"]
    level += unseen
    peak = level
    for d in curve:
        level += d
        peak = max(peak, level)
    return peak, len(curve) + 1


def main():
    fixtures = {"train_step": (train_step(), 0), "segments_only": (segments_only(), 0),
                "two_devices": (two_devices(), 1)}
    os.makedirs(OUT, exist_ok=True)
    for name, (snap, device) in fixtures.items():
        data = pickle.dumps(snap, protocol=4)
        with open(os.path.join(OUT, name + ".pickle"), "wb") as f:
            f.write(data)
        peak, points = expected(snap, device)
        print(f"{name}.pickle: {len(data)} bytes, device {device}, peak {peak} B, {points} points")
        if "--seeds" in sys.argv:
            seeds = os.path.join(ROOT, "fuzz", "seeds", "snapshot")
            os.makedirs(seeds, exist_ok=True)
            for protocol in (2, 4, 5):
                with open(os.path.join(seeds, f"{name}-p{protocol}.pickle"), "wb") as f:
                    f.write(pickle.dumps(snap, protocol=protocol))
    # A bad field for the error-path test: a negative size in device_traces[0][0].
    bad = {"segments": [], "device_traces": [[{"action": "alloc", "addr": 1, "size": -5}]]}
    with open(os.path.join(OUT, "negative_size.pickle"), "wb") as f:
        f.write(pickle.dumps(bad, protocol=4))


if __name__ == "__main__":
    main()
