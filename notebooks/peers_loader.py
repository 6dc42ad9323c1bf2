"""Load results/<gpu-slug>/peers.json (bench/peers/peers_bench.py; bench/peers/schema.py describes it) and put
each peer beside the project's own kernels of results/<gpu-slug>/bench.json (read through results_loader).

  load_peers(gpu)          the file, or None when no GPU run has written one yet
  peer_times(...)          one column of time_us per peer for one problem and timing
  project_best(...)        the fastest hand-written kernel, the fastest CUB call and the floor, per shape
  over_floor(...)          time over the floor's time, peers and project side by side
  cost_table(...)          peers and project at a few sizes or shapes, in microseconds
  wins(...)                where a peer is faster than the best hand-written kernel
Timings are "<clock>_<l2>" as in bench.json: gpu_cold, host_cold, gpu_hot, host_hot.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
NAME = "peers.json"
# The keys a notebook reads; the file holds every provenance key of report/provenance.hpp and more.
REQUIRED_CONTEXT = ("gpu_name", "code_id", "peak_gbps", "copy_gbps", "cccl_version", "date", "packages",
                    "clock_host", "clock_gpu", "l2_mode", "timing")
ROW_KEYS = ("peer", "op", "dtype", "kind", "shape", "n", "rows", "clock", "l2", "status", "time_us", "timer")
HAND_WRITTEN_EXCLUDED = ("cub", "thrust", "floor")


@dataclass
class Peers:
    context: dict
    frame: pd.DataFrame  # every row, with "timing" = clock_l2
    timed: pd.DataFrame  # the rows that were checked and timed
    peers: pd.DataFrame  # one row per peer: package, version, available, reason
    first_calls: pd.DataFrame
    not_offered: pd.DataFrame
    gpu: str


def gpus_with_peers(results: Path = RESULTS) -> list[str]:
    return sorted(p.parent.name for p in Path(results).glob(f"*/{NAME}"))


def load_peers(gpu: str | None = None, results: Path = RESULTS) -> Peers | None:
    """The peers file of `gpu` (None: the first GPU folder that holds one), or None when there is none."""
    found = gpus_with_peers(results)
    gpu = gpu or (found[0] if found else None)
    if gpu not in found:
        return None
    data = json.loads((Path(results) / gpu / NAME).read_text())
    context = dict(data.get("context", {}))
    missing = [k for k in REQUIRED_CONTEXT if k not in context]
    if missing:
        raise ValueError(f"{gpu}/{NAME} context lacks {missing}: re-run bench/peers/peers_bench.py")
    for key in ("peak_gbps", "copy_gbps"):
        context[key] = float(context[key])
    frame = pd.DataFrame(data.get("results", []), columns=None)
    lacking = [k for k in ROW_KEYS if k not in frame.columns]
    if lacking and not frame.empty:
        raise ValueError(f"{gpu}/{NAME} rows lack {lacking}")
    if frame.empty:
        frame = pd.DataFrame(columns=list(ROW_KEYS))
    frame["timing"] = frame["clock"] + "_" + frame["l2"]
    timed = frame[frame["status"] == "timed"].copy()
    timed["time_us"] = timed["time_us"].astype(float)
    timed["n"] = timed["n"].astype("int64")
    return Peers(context, frame, timed.reset_index(drop=True), pd.DataFrame(data.get("peers", [])),
                 pd.DataFrame(data.get("first_calls", [])), pd.DataFrame(data.get("not_offered", [])), gpu)


def _index(rows: pd.DataFrame, kind: str) -> str:
    return "n" if kind == "full" else "shape"


def peer_times(peers: Peers, kind: str, op: str, dtype: str, clock: str, l2: str) -> pd.DataFrame:
    """time_us with one row per n (full) or shape (batched) and one column per peer that has the problem;
    a peer's failed or unavailable cell is empty."""
    rows = peers.frame[(peers.frame.kind == kind) & (peers.frame.op == op) & (peers.frame.dtype == dtype)
                       & (peers.frame.clock == clock) & (peers.frame.l2 == l2)].copy()
    if rows.empty:
        return pd.DataFrame()
    rows["time_us"] = rows["time_us"].where(rows["status"] == "timed").astype(float)
    rows["n"] = rows["n"].astype("int64")
    wide = rows.pivot_table(index=_index(rows, kind), columns="peer", values="time_us", aggfunc="first", dropna=False)
    wide.columns.name = None
    return wide


def project_best(gpu: str | None, kind: str, op: str, dtype: str, timing: str) -> pd.DataFrame:
    """From bench.json: per n (full) or shape (batched), the fastest hand-written kernel and the fastest CUB
    call in `timing` (their names and time_us) and the floor's time_us for the same bytes; empty when
    bench.json has no such problem."""
    import results_loader as rl
    frame, _ = rl.load_bench(gpu)
    ms = f"ms_{timing}"
    rows = frame[(frame.kind == kind) & (frame.op == op) & (frame.dtype == dtype)]
    if ms not in rows.columns or rows.empty:
        return pd.DataFrame()
    rows = rows.dropna(subset=[ms])
    key = _index(rows, kind)
    out = pd.DataFrame(index=sorted(rows[key].unique(), key=lambda v: v if kind == "full" else tuple(map(int, v.split("x")))))
    for label, chosen in (("hand", rows[~rows.family.isin(HAND_WRITTEN_EXCLUDED)]), ("cub", rows[rows.family == "cub"])):
        if chosen.empty:
            continue
        best = chosen.loc[chosen.groupby(key)[ms].idxmin()].set_index(key)
        out[f"{label}_impl"] = best["impl"]
        out[f"{label}_us"] = best[ms] * 1e3
    floor = f"floor_ms_{timing}"
    if floor in rows.columns:
        out["floor_us"] = rows.groupby(key)[floor].min() * 1e3
    return out


def _floor_by_bytes(gpu: str | None, dtype: str, timing: str) -> pd.Series:
    """The floor's time_us per n of `dtype` from the floor rows (the floor is per byte count), for sizes the
    sweep did not time this problem at."""
    import results_loader as rl
    reads, _ = rl.load_floor(gpu)
    ms = f"ms_{timing}"
    if ms not in reads.columns:
        return pd.Series(dtype=float)
    reads = reads.dropna(subset=[ms])
    by_bytes = (reads["n"] * reads["elem_bytes"]).astype("int64")
    per_bytes = (reads.assign(bytes=by_bytes).groupby("bytes")[ms].min()) * 1e3
    size = {"f32": 4, "bf16": 2}[dtype]
    return pd.Series({b // size: t for b, t in per_bytes.items() if b % size == 0})


def over_floor(peers: Peers, kind: str, op: str, dtype: str, clock: str, l2: str) -> pd.DataFrame:
    """Time over the floor's time (1.00: the speed of a bare read of the same bytes): one column per peer,
    then 'best hand-written' and 'best CUB' from bench.json."""
    timing = f"{clock}_{l2}"
    times = peer_times(peers, kind, op, dtype, clock, l2)
    if times.empty:
        return pd.DataFrame()
    best = project_best(peers.gpu, kind, op, dtype, timing).reindex(times.index)
    floor = best["floor_us"] if "floor_us" in best else pd.Series(math.nan, index=times.index)
    if kind == "full":  # sizes the sweep did not time this problem at: the floor of the same bytes
        floor = floor.fillna(_floor_by_bytes(peers.gpu, dtype, timing).reindex(times.index))
    out = times.div(floor, axis=0)
    for label, column in (("best hand-written", "hand_us"), ("best CUB", "cub_us")):
        if column in best:
            out[label] = best[column] / floor
    return out


def pow2(n: int) -> str:
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def cost_table(peers: Peers, kind: str, op: str, dtype: str, clock: str, l2: str, at: list) -> pd.DataFrame:
    """time_us of every peer, the best hand-written kernel and the best CUB call at the sizes (full) or
    shapes (batched) in `at`, and each peer's time over the best hand-written kernel's (x hand)."""
    times = peer_times(peers, kind, op, dtype, clock, l2)
    if times.empty:
        return pd.DataFrame()
    best = project_best(peers.gpu, kind, op, dtype, f"{clock}_{l2}")
    at = [a for a in at if a in times.index]
    table = times.loc[at].T
    hand = best["hand_us"].reindex(at) if "hand_us" in best else pd.Series(math.nan, index=at)
    rows = {"best hand-written": hand}
    if "cub_us" in best:
        rows["best CUB"] = best["cub_us"].reindex(at)
    table = pd.concat([table, pd.DataFrame(rows).T])
    ratio = table.div(hand, axis=1)
    ratio.index = [f"{name} (x hand)" for name in ratio.index]
    out = pd.concat([table, ratio.drop(index="best hand-written (x hand)")])
    out.columns = [pow2(a) if kind == "full" else a for a in at]
    return out


def wins(peers: Peers, over: str = "hand") -> pd.DataFrame:
    """Every (problem, timing) where a peer's time is below the best hand-written kernel's (over="hand") or the
    best CUB call's (over="cub") in bench.json, with both times."""
    found = []
    for (kind, op, dtype, clock, l2), rows in peers.timed.groupby(["kind", "op", "dtype", "clock", "l2"]):
        best = project_best(peers.gpu, kind, op, dtype, f"{clock}_{l2}")
        column = f"{over}_us"
        if best.empty or column not in best:
            continue
        key = _index(rows, kind)
        for _, r in rows.iterrows():
            theirs = best[column].get(r[key])
            if theirs is not None and not math.isnan(theirs) and r["time_us"] < theirs:
                found.append({"peer": r["peer"], "kind": kind, "op": op, "dtype": dtype, "shape": r["shape"], "n": r["n"],
                              "timing": f"{clock}_{l2}", "peer_us": r["time_us"], f"{over}_us": theirs,
                              f"{over}_impl": best[f"{over}_impl"].get(r[key]), "ratio": r["time_us"] / theirs})
    return pd.DataFrame(found)
