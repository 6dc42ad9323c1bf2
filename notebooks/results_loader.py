"""Load the project's measured results for the notebooks and the README.

Everything comes from files a project binary wrote under results/<gpu-slug>/:
  bench.json     Google Benchmark JSON from reduce_bench (counters + labels, never console text): every
                 case timed on two clocks (host, gpu) in two L2 states (cold, hot), and the floor
  bench_cccl_toolkit.json  the cub.* and thrust.* rows built against the CUDA Toolkit's own (older) CCCL
  tests.json     merged GoogleTest report from scripts/gpu_run.sh
  accuracy.json  float32 error and run-to-run variation from accuracy_study
  pi.json        pi by every method from pi_study
  launch_cost.json  each call's host enqueue time beside both event clocks, from launch_cost_study
  sanitizer.json compute-sanitizer summary from scripts/sanitize.sh
  repeat_full.json, repeat_rows.json  a repeatability study: reduce_bench on a few near-tie cases with
                 --benchmark_repetitions and --benchmark_enable_random_interleaving, one row per
                 repetition (load_repeats); optional, a GPU folder may lack them (gpus_with)

Any GPU folder a user adds works: pass its slug, or leave it out to use the only/first one.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"

# Every results file carries the same provenance context (report/provenance.hpp writes it into
# bench.json, accuracy.json and pi.json, all values as text); these are the keys the notebooks read, and
# a file without them is refused. The benchmark alone also has an L2 mode.
REQUIRED_CONTEXT = ("gpu_name", "peak_gbps", "copy_gbps", "code_id", "cccl_version")
REQUIRED_BENCH_CONTEXT = REQUIRED_CONTEXT + ("l2_mode",)
REQUIRED_COUNTERS = ("GBps", "pct_peak", "pct_copy", "median_ms", "n", "segments", "elem_bytes")


class ResultsError(RuntimeError):
    """A results file is missing or lacks what the notebooks need."""


def gpus() -> list[str]:
    """GPU folders under results/ that hold a benchmark file."""
    return sorted(p.parent.name for p in RESULTS.glob("*/bench.json"))


def gpus_with(name: str) -> list[str]:
    """The GPU folders of gpus() that also hold the results file `name` (e.g. repeat_full.json)."""
    return [gpu for gpu in gpus() if (RESULTS / gpu / name).exists()]


def _folder(gpu: str | None) -> Path:
    found = gpus()
    if not found:
        raise ResultsError(f"no results/<gpu>/bench.json under {RESULTS}: run `cmake --workflow --preset bench` on a GPU")
    gpu = gpu or found[0]
    if gpu not in found:
        raise ResultsError(f"no results for GPU '{gpu}'; available: {', '.join(found)}")
    return RESULTS / gpu


def load_json(name: str, gpu: str | None = None) -> dict:
    path = _folder(gpu) / name
    if not path.exists():
        raise ResultsError(f"{path} is missing: it is written by the project's GPU run (scripts/gpu_run.sh)")
    with open(path) as f:
        return json.load(f)


def _checked_context(data: dict, name: str, required: tuple[str, ...]) -> dict:
    """The file's context, refused when it lacks a required key, with the bandwidths as numbers."""
    context = data.get("context", {})
    missing = [k for k in required if k not in context]
    if missing:
        raise ResultsError(f"{name} context lacks {missing}: re-run the program that wrote it with this version of the code")
    context["peak_gbps"] = float(context["peak_gbps"])
    context["copy_gbps"] = float(context["copy_gbps"])
    return context


def load_study(name: str, gpu: str | None = None) -> dict:
    """accuracy.json or pi.json: the whole file, its provenance context checked."""
    data = load_json(name, gpu)
    _checked_context(data, name, REQUIRED_CONTEXT)
    return data


def load_launch_cost(gpu: str | None = None) -> tuple[dict, pd.DataFrame]:
    """launch_cost.json: its context, and one row per (impl, dtype, n) with enqueue_us, host_clock_us,
    gpu_clock_us and remainder_us; the reference row launch.empty (the empty launch) has dtype "none"."""
    study = load_study("launch_cost.json", gpu)
    return study["context"], pd.DataFrame(study["results"])


def load_accuracy(gpu: str | None = None, dtype: str = "f32", data: str = "uniform01") -> tuple[dict, pd.DataFrame]:
    """accuracy.json: its context, and its rows for one element type and data set. Files written before the
    study covered doubles and three data sets hold f32 on uniform [0, 1) only, under the same names once
    read here (cpu.sequential_float is cpu.sequential)."""
    study = load_study("accuracy.json", gpu)
    frame = pd.DataFrame(study["results"])
    if "dtype" not in frame:
        frame = frame.assign(dtype="f32", data="uniform01")
        frame["method"] = frame.method.replace({"cpu.sequential_float": "cpu.sequential",
                                                "cpu.pairwise_float": "cpu.pairwise"})
    frame = frame[(frame.dtype == dtype) & (frame.data == data)].reset_index(drop=True)
    return study["context"], frame


def _parse_label(label: str) -> dict:
    fields = dict(part.split("=", 1) for part in label.split() if "=" in part)
    missing = {"impl", "family", "dtype", "op", "kind", "shape"} - fields.keys()
    if missing:
        raise ResultsError(f"benchmark label lacks {sorted(missing)}: {label!r}")
    return fields


# The ways every case is timed (reduce_bench --clocks, --l2): clock_L2. The headline counters (GBps,
# median_ms, pct_peak) are the first of these that the file's context names as its headline.
TIMINGS = ("host_cold", "gpu_cold", "host_hot", "gpu_hot")


def _frame(data: dict, name: str, floor: bool) -> pd.DataFrame:
    """Rows of the implementations (floor=False) or of the floor (floor=True), with every counter."""
    rows = []
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        if "label" not in b:
            raise ResultsError(f"benchmark {b.get('name')} in {name} has no label")
        row = _parse_label(b["label"])
        if (row["family"] == "floor") != floor:
            continue
        if not floor:
            for counter in REQUIRED_COUNTERS:
                if counter not in b:
                    raise ResultsError(f"benchmark {b.get('name')} lacks counter {counter}")
        for key, value in b.items():
            if isinstance(value, (int, float)) and key not in row and not key.endswith("_time"):
                row[key] = value
        rows.append(row)
    return pd.DataFrame(rows)


def load_bench(gpu: str | None = None, name: str = "bench.json") -> tuple[pd.DataFrame, dict]:
    """One row per benchmarked case: label fields + counters (ms_<timing>, GBps_<timing>,
    pct_floor_<timing> per clock and L2 state, and the headline GBps/median_ms). Returns (frame, context)."""
    data = load_json(name, gpu)
    context = _checked_context(data, name, REQUIRED_BENCH_CONTEXT)
    frame = _frame(data, name, floor=False)
    if frame.empty:
        raise ResultsError(f"{name} holds no successful benchmark")
    frame["n"] = frame["n"].astype("int64")
    frame["segments"] = frame["segments"].astype("int64")
    return frame, context


def load_floor(gpu: str | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The floor rows of bench.json: (reads by dtype and n with ms_/GBps_<timing> and the winning
    shape per timing, the empty launch's ms_<timing>)."""
    data = load_json("bench.json", gpu)
    frame = _frame(data, "bench.json", floor=True)
    if frame.empty:
        raise ResultsError("bench.json has no floor rows: it was written with --floor=no or by an older reduce_bench")
    reads = frame[frame["impl"] == "floor.read"].copy()
    reads["n"] = reads["n"].astype("int64")
    return reads, frame[frame["impl"] == "floor.empty_launch"]


def timings(frame: pd.DataFrame) -> list[str]:
    """The timings present in a frame, in TIMINGS order."""
    return [t for t in TIMINGS if f"ms_{t}" in frame.columns]


HAND_WRITTEN_EXCLUDED = ("cub", "thrust", "floor")


def versus_best_cub(frame: pd.DataFrame, timing: str) -> pd.DataFrame:
    """Per problem (kind, dtype, op, shape): the fastest hand-written row and the fastest CUB row in
    `timing`, and `ratio` = CUB time / hand-written time (above 1: the hand-written kernel wins)."""
    ms = f"ms_{timing}"
    keys = ["kind", "dtype", "op", "shape", "n", "segments"]
    timed = frame.dropna(subset=[ms])
    hand = timed[~timed["family"].isin(HAND_WRITTEN_EXCLUDED)]
    cub = timed[timed["family"] == "cub"]
    best_hand = hand.loc[hand.groupby(keys)[ms].idxmin(), keys + ["impl", ms]].rename(
        columns={"impl": "best_hand_written", ms: "hand_ms"})
    best_cub = cub.loc[cub.groupby(keys)[ms].idxmin(), keys + ["impl", ms]].rename(
        columns={"impl": "best_cub", ms: "cub_ms"})
    out = best_hand.merge(best_cub, on=keys)
    out["ratio"] = out["cub_ms"] / out["hand_ms"]
    return out.sort_values(["kind", "dtype", "op", "n", "segments"]).reset_index(drop=True)


def with_ratio_to_cub(frame: pd.DataFrame) -> pd.DataFrame:
    """Adds `vs_cub`: GB/s over the fastest CUB variant's GB/s for the same kind, dtype, op and shape
    (headline timing), and `best_cub`, that variant's name."""
    keys = ["kind", "dtype", "op", "shape"]
    cub = frame[frame["family"] == "cub"]
    best = cub.loc[cub.groupby(keys)["GBps"].idxmax(), keys + ["impl", "GBps"]].rename(
        columns={"impl": "best_cub", "GBps": "cub_GBps"})
    out = frame.merge(best, on=keys, how="left")
    out["vs_cub"] = out["GBps"] / out["cub_GBps"]
    return out


REPEAT_COLUMNS = ("kind", "impl", "family", "dtype", "op", "shape", "n", "segments", "repetition")


def load_repeats(name: str, gpu: str | None = None) -> tuple[pd.DataFrame, dict]:
    """repeat_full.json or repeat_rows.json (reduce_bench run with --benchmark_repetitions and
    --benchmark_enable_random_interleaving): one row per implementation, case and repetition, with
    kind, impl, family, dtype, op, shape, n, segments, repetition (Google Benchmark's repetition_index,
    from 0) and ms_<timing> for each timing the file holds. Google Benchmark's aggregate rows (mean,
    median, stddev, cv) and the floor's rows are left out. The context is checked as bench.json's is.
    gpu=None takes the first GPU folder that holds the file. Returns (frame, context)."""
    holders = gpus_with(name)
    gpu = gpu or (holders[0] if holders else None)
    if gpu not in holders:
        raise ResultsError(f"no {name} for GPU '{gpu or 'any'}' (a repeatability study, run by hand with reduce_bench "
                           f"--benchmark_repetitions; present for: {', '.join(holders) or 'none'})")
    data = load_json(name, gpu)
    context = _checked_context(data, name, REQUIRED_BENCH_CONTEXT)
    runs = [b for b in data.get("benchmarks", []) if b.get("run_type") == "iteration"]
    unindexed = [b.get("name") for b in runs if "repetition_index" not in b]
    if unindexed:
        raise ResultsError(f"{name}: {len(unindexed)} runs lack repetition_index, e.g. {unindexed[0]}")
    if runs and max(int(b.get("repetitions", 1)) for b in runs) < 2:
        raise ResultsError(f"{name} holds one repetition per case: it was not written with --benchmark_repetitions")
    frame = _frame({"benchmarks": runs}, name, floor=False)
    if frame.empty:
        raise ResultsError(f"{name} holds no successful benchmark")
    ms = [f"ms_{t}" for t in TIMINGS if f"ms_{t}" in frame.columns]
    if not ms:
        raise ResultsError(f"{name} holds none of the counters {[f'ms_{t}' for t in TIMINGS]}")
    frame = frame.rename(columns={"repetition_index": "repetition"})
    for column in ("n", "segments", "repetition"):
        frame[column] = frame[column].astype("int64")
    frame = frame[list(REPEAT_COLUMNS) + ms]
    return frame.sort_values(["kind", "dtype", "op", "n", "segments", "impl", "repetition"]).reset_index(drop=True), context
