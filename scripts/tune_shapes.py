#!/usr/bin/env python3
"""The tuner of the run-time launch-shape values (common/host/tuning.hpp), run on the GPU to tune for.

Each candidate table is handed to reduce_bench through REDU_TUNING_FILE; the modern family's kernels are
timed for f32, f64 and i32 sums from 2^16 to 2^30 elements on both clocks, L2 cold and hot. A candidate's
score is the geometric mean over every (kernel, type, size, timing) of its time over the defaults' time,
so 0.97 means 3% faster on average. The best candidate is written to tuning/<gpu-slug>.txt, with every
score in its comments, only if it beats the defaults by more than --margin (else the defaults are
written, and the table says so).

  scripts/tune_shapes.py                       build/bench/reduce_bench, every candidate
  scripts/tune_shapes.py --waves 16,64 --dry-run

Needs a GPU (reduce_bench refuses without one); ~20 s per candidate on an H100.
"""
import argparse
import itertools
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = "modern.atomic,modern.last_block,modern.vec_two_pass,modern.cluster"
# The defaults of handwritten/modern/modern_shape.cuh, which a table overrides.
DEFAULTS = {"modern.waves": 64, "modern.large_input_log2": 29}


def label_fields(label: str) -> dict:
    return dict(part.split("=", 1) for part in label.split() if "=" in part)


def times(bench_json: dict) -> dict:
    """(impl, dtype, n, timing) -> ms, from a reduce_bench JSON file."""
    out = {}
    timings = bench_json["context"]["timings"].split(",")
    for b in bench_json.get("benchmarks", []):
        if b.get("error_occurred") or "label" not in b:
            continue
        f = label_fields(b["label"])
        if f.get("family") == "floor":
            continue
        for t in timings:
            ms = b.get(f"ms_{t}")
            if ms:
                out[(f["impl"], f["dtype"], int(b["n"]), t)] = ms
    return out


def score(candidate: dict, defaults: dict) -> float:
    """Geometric mean of candidate time / default time over the keys both measured."""
    keys = candidate.keys() & defaults.keys()
    if not keys:
        raise SystemExit("tune_shapes: the runs share no measured case")
    return math.exp(sum(math.log(candidate[k] / defaults[k]) for k in keys) / len(keys))


def table_text(values: dict) -> str:
    return "".join(f"{name} {value}\n" for name, value in values.items())


def run(bench: str, values: dict, out_json: Path, samples: int) -> dict:
    table = out_json.with_suffix(".txt")
    table.write_text(table_text(values))
    command = [bench, f"--impl={KERNELS}", "--types=f32,f64,i32", "--ops=sum", "--min_log2=16", "--max_log2=30",
               "--floor=no", "--clocks=gpu,host", "--l2=cold,hot", f"--samples={samples}",
               f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    env = dict(os.environ, REDU_TUNING_FILE=str(table))
    print("tune_shapes:", " ".join(f"{k}={v}" for k, v in values.items()), flush=True)
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out_json.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=str(ROOT / "build/bench/reduce_bench"))
    parser.add_argument("--waves", default="4,16,64", help="candidates for modern.waves")
    parser.add_argument("--large_input_log2", default="27,29,31", help="candidates for modern.large_input_log2")
    parser.add_argument("--samples", type=int, default=9)
    parser.add_argument("--margin", type=float, default=0.01,
                        help="a candidate replaces the defaults only when its score is below 1 - margin")
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    args = parser.parse_args()

    grid = [dict(zip(DEFAULTS, combo)) for combo in itertools.product(
        [int(v) for v in args.waves.split(",")], [int(v) for v in args.large_input_log2.split(",")])]
    if DEFAULTS not in grid:
        grid.insert(0, dict(DEFAULTS))
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(values, run(args.bench, values, Path(tmp) / f"run{i}.json", args.samples))
                for i, values in enumerate(grid)]
    context = runs[0][1]["context"]
    baseline = times(next(data for values, data in runs if values == DEFAULTS))
    scored = sorted(((score(times(data), baseline), values) for values, data in runs), key=lambda sv: sv[0])
    best_score, best = scored[0]
    chosen = best if best_score < 1 - args.margin else dict(DEFAULTS)

    lines = [f"# tuning/{context['gpu_slug']}.txt: run-time launch-shape values for {context['gpu_name']}",
             f"# written by scripts/tune_shapes.py; code_id {context.get('code_id', '?')}, "
             f"CCCL {context.get('cccl_version', '?')}, {context.get('date', '?')}",
             f"# kernels {KERNELS}; f32/f64/i32 sum, 2^16..2^30, GPU and host clocks, L2 cold and hot",
             "# score = geometric mean of time / time with the defaults (below 1: faster):"]
    lines += [f"#   {' '.join(f'{k}={v}' for k, v in values.items())}: {s:.4f}" for s, values in scored]
    if chosen == DEFAULTS:
        lines.append(f"# no candidate beat the defaults by more than {args.margin:.0%}: the defaults")
    text = "\n".join(lines) + "\n" + table_text(chosen)
    print(text, end="")
    if not args.dry_run:
        path = ROOT / "tuning" / f"{context['gpu_slug']}.txt"
        if not re.fullmatch(r"[a-z0-9-]+", context["gpu_slug"]):
            raise SystemExit(f"tune_shapes: unexpected GPU slug {context['gpu_slug']!r}")
        path.write_text(text)
        print(f"tune_shapes: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
