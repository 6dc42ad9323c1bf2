"""Load the project's measured results for the notebooks and the README.

Everything comes from files a project binary wrote under results/<gpu-slug>/:
  bench.json     Google Benchmark JSON from reduce_bench (counters + labels, never console text)
  tests.json     merged GoogleTest report from scripts/gpu_run.sh
  accuracy.json  float32 error and run-to-run variation from accuracy_study
  pi.json        pi by every method from pi_study
  sanitizer.json compute-sanitizer summary from scripts/sanitize.sh

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


def _parse_label(label: str) -> dict:
    fields = dict(part.split("=", 1) for part in label.split() if "=" in part)
    missing = {"impl", "family", "dtype", "op", "kind", "shape"} - fields.keys()
    if missing:
        raise ResultsError(f"benchmark label lacks {sorted(missing)}: {label!r}")
    return fields


def load_bench(gpu: str | None = None) -> tuple[pd.DataFrame, dict]:
    """One row per benchmark: label fields + counters. Returns (frame, context)."""
    data = load_json("bench.json", gpu)
    context = _checked_context(data, "bench.json", REQUIRED_BENCH_CONTEXT)
    rows = []
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        if "label" not in b:
            raise ResultsError(f"benchmark {b.get('name')} has no label")
        row = _parse_label(b["label"])
        for counter in REQUIRED_COUNTERS:
            if counter not in b:
                raise ResultsError(f"benchmark {b.get('name')} lacks counter {counter}")
            row[counter] = b[counter]
        rows.append(row)
    if not rows:
        raise ResultsError("bench.json holds no successful benchmark")
    frame = pd.DataFrame(rows)
    frame["n"] = frame["n"].astype("int64")
    frame["segments"] = frame["segments"].astype("int64")
    return frame, context


def with_ratio_to_cub(frame: pd.DataFrame) -> pd.DataFrame:
    """Adds `vs_cub`: GB/s over the CUB baseline's GB/s for the same kind, dtype, op and shape."""
    baseline = {"full": "cub.device_reduce", "batched": "cub.segmented_reduce", "segmented": "cub.segmented_reduce"}
    keys = ["kind", "dtype", "op", "shape"]
    base = frame[frame["impl"] == frame["kind"].map(baseline)][keys + ["GBps"]].rename(columns={"GBps": "cub_GBps"})
    out = frame.merge(base, on=keys, how="left")
    out["vs_cub"] = out["GBps"] / out["cub_GBps"]
    return out
