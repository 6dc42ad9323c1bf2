#!/usr/bin/env python3
"""The tuner of the run-time launch-shape values (common/host/tuning.hpp), run on the GPU to tune for.

The values come in groups, one per kernel family; a group's kernels read only its values, so each group
is tuned on its own. Each candidate table is handed to reduce_bench through REDU_TUNING_FILE, and the
group's kernels are timed from 2^16 to 2^30 elements on both clocks, L2 cold and hot:
  modern  modern.waves, modern.large_input_log2   modern.{atomic,last_block,vec_two_pass,cluster}, f32/f64/i32 sum
  argext  argext.waves                            argext.{key64,pair}, f32/i32 argmax
A candidate's score is the geometric mean over every (kernel, type, size, timing) of its time over the
defaults' time, so 0.97 means 3% faster on average. Per group, the best candidate is kept only if it
beats the defaults by more than --margin (else the defaults are kept, and the table says so). The table,
every score in its comments, is written to tuning/<gpu-slug>.txt.

  scripts/tune_shapes.py                               build/bench/reduce_bench, every group and candidate
  scripts/tune_shapes.py --groups argext --candidates argext.waves=1,2,4 --dry-run

Needs a GPU (reduce_bench refuses without one); ~20 s per modern candidate on an H100, a few s per argext one.
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

# name -> (kernels, types, ops, defaults, candidates). The defaults are those of the family's shape header
# (handwritten/modern/modern_shape.cuh, handwritten/argext/argext_shape.cuh), which a table overrides.
GROUPS = {
    "modern": ("modern.atomic,modern.last_block,modern.vec_two_pass,modern.cluster", "f32,f64,i32", "sum",
               {"modern.waves": 64, "modern.large_input_log2": 29},
               {"modern.waves": [1, 8, 64], "modern.large_input_log2": [26, 29]}),
    "argext": ("argext.key64,argext.pair", "f32,i32", "argmax",
               {"argext.waves": 16},
               {"argext.waves": [2, 4, 16]}),
}


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


def run(bench: str, group: str, values: dict, out_json: Path, samples: int) -> dict:
    kernels, types, ops = GROUPS[group][:3]
    table = out_json.with_suffix(".txt")
    table.write_text(table_text(values))
    command = [bench, f"--impl={kernels}", f"--types={types}", f"--ops={ops}", "--min_log2=16", "--max_log2=30",
               "--floor=no", "--clocks=gpu,host", "--l2=cold,hot", f"--samples={samples}",
               f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    env = dict(os.environ, REDU_TUNING_FILE=str(table))
    print(f"tune_shapes: {group}:", " ".join(f"{k}={v}" for k, v in values.items()), flush=True)
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out_json.read_text())


def tune_group(args, group: str, candidates: dict, tmp: Path):
    """(chosen values, comment lines, context of the runs) for one group."""
    defaults = GROUPS[group][3]
    grid = [dict(zip(candidates, combo)) for combo in itertools.product(*candidates.values())]
    if defaults not in grid:
        grid.insert(0, dict(defaults))
    runs = [(values, run(args.bench, group, values, tmp / f"{group}{i}.json", args.samples))
            for i, values in enumerate(grid)]
    baseline = times(next(data for values, data in runs if values == defaults))
    scored = sorted(((score(times(data), baseline), values) for values, data in runs), key=lambda sv: sv[0])
    best_score, best = scored[0]
    chosen = best if best_score < 1 - args.margin else dict(defaults)
    kernels, types, ops = GROUPS[group][:3]
    lines = [f"# {group}: {kernels}; {types} {ops}, 2^16..2^30, GPU and host clocks, L2 cold and hot",
             "#   score = geometric mean of time / time with the defaults (below 1: faster):"]
    lines += [f"#   {' '.join(f'{k}={v}' for k, v in values.items())}: {s:.4f}" for s, values in scored]
    if chosen == defaults:
        lines.append(f"#   no candidate beat the defaults by more than {args.margin:.0%}: the defaults")
    return chosen, lines, runs[0][1]["context"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=str(ROOT / "build/bench/reduce_bench"))
    parser.add_argument("--groups", default=",".join(GROUPS), help="groups to tune (default: all)")
    parser.add_argument("--candidates", action="append", default=[], metavar="NAME=V1,V2",
                        help="candidate values for one name, instead of the group's own (repeatable)")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--margin", type=float, default=0.01,
                        help="a candidate replaces the defaults only when its score is below 1 - margin")
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    args = parser.parse_args()

    groups = args.groups.split(",")
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise SystemExit(f"tune_shapes: unknown group(s) {unknown}; the groups are {list(GROUPS)}")
    overrides = {}
    for item in args.candidates:
        name, _, values = item.partition("=")
        if not any(name in GROUPS[g][3] for g in GROUPS) or not values:
            raise SystemExit(f"tune_shapes: --candidates {item!r}: expected NAME=V1,V2 with NAME one of "
                             f"{[n for g in GROUPS for n in GROUPS[g][3]]}")
        overrides[name] = [int(v) for v in values.split(",")]

    chosen, comments, context = {}, [], None
    with tempfile.TemporaryDirectory() as tmp:
        for group in groups:
            candidates = {name: overrides.get(name, values) for name, values in GROUPS[group][4].items()}
            values, lines, context = tune_group(args, group, candidates, Path(tmp))
            chosen.update(values)
            comments += lines

    header = [f"# tuning/{context['gpu_slug']}.txt: run-time launch-shape values for {context['gpu_name']}",
              f"# written by scripts/tune_shapes.py; code_id {context.get('code_id', '?')}, "
              f"CCCL {context.get('cccl_version', '?')}, {context.get('date', '?')}"]
    text = "\n".join(header + comments) + "\n" + table_text(chosen)
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
