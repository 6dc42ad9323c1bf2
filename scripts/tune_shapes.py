#!/usr/bin/env python3
"""The tuner of the run-time launch-shape values (common/host/tuning.hpp), run on the GPU to tune for.

The values come in groups, one per kernel family; a group's kernels read only its values, so each group
is tuned on its own. Each candidate table is handed to reduce_bench through REDU_TUNING_FILE, and the
group's kernels are timed on both clocks, L2 cold and hot, at the sizes where the values can change the
grid: full arrays from 2^--min_log2 (default 2^22) to 2^30 (below that every candidate launches the
same grid); for a batched group, the sweep's batched shapes whose row length lies above the smallest
value tried and at most the largest (below, every candidate takes the warp groups; above, none does):
  modern  modern.waves, modern.tiles_per_block,   modern.{atomic,last_block,vec_two_pass,cluster}, f32/f64/i32 sum
          modern.large_input_log2
  argext  argext.waves                            argext.{key64,pair}, f32/i32 argmax
  precision precision.waves                       precision.{compensated_sum,compensated_atomic}, f32/f64 sum
  exact     precision.exact_waves                 precision.exact_sum, f32/f64 sum
  argext_rows argext.equal_row_warp_max           argext.rows, f32 argmax, batched shapes (rows 513..4096 with
                                                  the candidates 512, 4096: the sweep's 65536x4096)
  halves_rows halves.equal_row_warp_max           halves.segmented, bf16 sum, batched shapes (rows 2049..8192
                                                  with the candidates 2048, 8192: the sweep's 65536x4096)
  segmented_offsets segmented.segment_threads     segmented.adaptive, f32 sum, the sweep's segmented (offsets)
                                                  shapes, every one scored (128 or 256 threads a block per segment)
  pow2_rows segmented.rows_waves                  segmented.adaptive, f32 sum, the sweep's power-of-two rows up to 1024
                                                  floats (reduce_pow2_rows's rows; 1, 4, 16, 64 waves)

How a candidate is judged, and why:
  - Rounds. Every candidate (the defaults included) runs once per round, in a shuffled order, for
    --rounds rounds; each case keeps its median over the rounds. Run one after another once each, the
    candidates' scores rose with run order on both GPUs (drift between runs), which then chose the table.
  - The family's best. Per (type, case, timing) the score reads the fastest kernel of the group, since
    that is what is compared with CUB; a value that slows a kernel nobody would pick does not count. A
    case is the benchmark's shape (its label's shape=): n:<n> for a full array, <rows>x<length> for a
    batched one (many batched shapes share n = 2^28).
  - Batched groups (argext_rows). reduce_bench runs the group's kernel on the sweep's batched shapes
    only (--benchmark_filter=^batched/: the equal-row shapes of 2^28 elements, 2048x262144 and the
    sampling shapes), and only the shapes whose row length can change the launch are scored: with
    every shape scored, a 16% gain on 65536x4096 alone would move the mean of 24 shapes by under 1%
    and never pass --margin, and the rest would add only noise to the worst case. Many rows are also
    needed (8 per SM: argext_shape.cuh) for the value to apply; shapes with fewer rows but a length in
    range are scored too (they launch alike for every candidate: ratio ~1).
  - Score: the geometric mean over the cases of best time / the defaults' best time (0.97: 3% faster).
  - No loss anywhere: a candidate whose best is slower than the defaults' by more than --tolerance at any
    GPU-clock case is refused, however good its mean (the targets are per size: >= 1.00x CUB at every n;
    the host clock's launch noise would refuse everything). The default, 2%, sits just above the noise
    of a three-round median: at 1% an H200 tuner refused argext.waves 2 for a
    1.6% case although its score was 0.964, and the sweep then lost argmax at 2^26 by 6-7% to CUB.
  - A close refusal is re-timed: a candidate refused by at most twice --tolerance whose score beats
    every eligible candidate's runs --rounds more rounds, with the defaults and the best eligible
    candidate, and all are judged again on every round they ran. In one run the H200 refused
    precision.waves 1 for 2.9% at one case (score 0.907), which the run before had chosen; the extra
    rounds tell one noisy case from a real loss, which stays refused.
Per group, the best eligible candidate is kept only if its score is below 1 - --margin; else the
defaults are kept, and the table says so. The table, every score in its comments, is written to
tuning/<gpu-slug>.txt.

  scripts/tune_shapes.py                               build/bench/reduce_bench, every group and candidate
  scripts/tune_shapes.py --groups argext --candidates argext.waves=1,2,4 --dry-run
  scripts/tune_shapes.py --groups argext_rows --dry-run
  scripts/tune_shapes.py --groups argext_rows          one group; the table keeps the other groups' lines

Needs a GPU (reduce_bench refuses without one); about 2 s per candidate and round (full arrays; a
batched group times 24 shapes, most of 2^28 elements: a few seconds, not yet measured).
"""
import argparse
import itertools
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (kernels, types, ops, defaults, candidates, shapes). The defaults are those of the family's
# shape header (handwritten/modern/modern_shape.cuh, handwritten/argext/argext_shape.cuh,
# handwritten/precision/precision_shape.cuh), which a table overrides. shapes, what the group is timed on:
#   FULL                   full arrays, 2^--min_log2..2^30;
#   ("rows", value)        the sweep's batched shapes, scored on those whose row length lies in
#                          (smallest, largest] of this value's defaults and candidates;
#   ("pow2_rows", max)     the sweep's batched shapes, scored on those whose rows are a power of two of at
#                          most max elements (the rows segmented.adaptive gives reduce_pow2_rows);
#   ("filter", regex)      the sweep's shapes matching a benchmark filter, every one scored (the segmented
#                          offsets path: its value changes only that path, handwritten/segmented/segmented_shape.cuh).
FULL = ("full", None)
GROUPS = {
    # Waves 8 dropped from the candidates with tiles_per_block's arrival (it never won a table).
    "modern": ("modern.atomic,modern.last_block,modern.vec_two_pass,modern.cluster", "f32,f64,i32", "sum",
               {"modern.waves": 64, "modern.tiles_per_block": 1, "modern.large_input_log2": 29},
               {"modern.waves": [1, 64], "modern.tiles_per_block": [1, 2, 4, 8],
                "modern.large_input_log2": [26, 29]}, FULL),
    "argext": ("argext.key64,argext.pair", "f32,i32", "argmax",
               {"argext.waves": 16},
               {"argext.waves": [1, 2, 4, 16]}, FULL),
    # Both compensated kernels read precision.waves; the score takes the faster per case, as for modern.
    # With only the tree kernel scored, the H100's table took 8 waves, under which the atomic kernel
    # fell further behind modern.atomic at 2^25-2^30 f32 than at 64 waves (an experiment on the H100).
    "precision": ("precision.compensated_sum,precision.compensated_atomic", "f32,f64", "sum",
                  {"precision.waves": 64},
                  {"precision.waves": [1, 8, 64]}, FULL),
    "exact": ("precision.exact_sum", "f32,f64", "sum",
              {"precision.exact_waves": 1},
              {"precision.exact_waves": [1, 2, 8, 64]}, FULL),
    "argext_rows": ("argext.rows", "f32", "argmax",
                    {"argext.equal_row_warp_max": 512},
                    {"argext.equal_row_warp_max": [512, 4096]}, ("rows", "argext.equal_row_warp_max")),
    "halves_rows": ("halves.segmented", "bf16", "sum",
                    {"halves.equal_row_warp_max": 2048},
                    {"halves.equal_row_warp_max": [2048, 8192]}, ("rows", "halves.equal_row_warp_max")),
    "segmented_offsets": ("segmented.adaptive", "f32", "sum",
                          {"segmented.segment_threads": 256},
                          {"segmented.segment_threads": [128, 256]}, ("filter", "^segmented/")),
    # Scored on the batched shapes whose rows take reduce_pow2_rows (power-of-two rows up to 4 KiB, 1024
    # floats); the value changes no other path.
    "pow2_rows": ("segmented.adaptive", "f32", "sum",
                  {"segmented.rows_waves": 64},
                  {"segmented.rows_waves": [1, 4, 16, 64]}, ("pow2_rows", 1024)),
}


# Candidates that launch the same grids as another candidate of their group, left out of its runs: with
# one wave, every modern.tiles_per_block gives the one-wave grid (GridRule in handwritten/modern/grid_shape.cuh).
SAME_GRIDS = {
    "modern": lambda c: c["modern.waves"] == 1 and c["modern.tiles_per_block"] != 1,
}


def label_fields(label: str) -> dict:
    return dict(part.split("=", 1) for part in label.split() if "=" in part)


def times(bench_json: dict) -> dict:
    """(impl, dtype, case, timing) -> ms, from a reduce_bench JSON file. The case is the label's shape:
    n:<n> for a full array (one per n), <rows>x<length> for equal rows."""
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
                out[(f["impl"], f["dtype"], f.get("shape") or f"n:{int(b['n'])}", t)] = ms
    return out


def row_length(case: str):
    """The row length of a <rows>x<length> case; None for a full array (n:<n>) or a segmented set."""
    match = re.fullmatch(r"(\d+)x(\d+)", case)
    return int(match.group(2)) if match else None


def family_best(per_kernel: dict) -> dict:
    """(dtype, case, timing) -> the fastest kernel's ms."""
    best = {}
    for (_, dtype, case, timing), ms in per_kernel.items():
        key = (dtype, case, timing)
        best[key] = min(best.get(key, ms), ms)
    return best


def judge(candidate: dict, defaults: dict) -> tuple[float, float, str]:
    """(geometric mean over every case, worst over the GPU-clock cases, that worst case's name) of
    candidate best / defaults' best. The worst case reads the GPU clock only: the host clock adds the
    host's launch time, whose noise between runs (a few %) would refuse every candidate."""
    keys = candidate.keys() & defaults.keys()
    if not keys:
        raise SystemExit("tune_shapes: the runs share no measured case")
    ratios = {k: candidate[k] / defaults[k] for k in keys}
    worst_key = max((k for k in ratios if k[2].startswith("gpu")), key=lambda k: ratios[k])
    return (math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios)), ratios[worst_key],
            " ".join(worst_key))


def table_text(values: dict) -> str:
    return "".join(f"{name} {value}\n" for name, value in values.items())


def run(args, group: str, values: dict, out_json: Path) -> dict:
    kernels, types, ops = GROUPS[group][:3]
    table = out_json.with_suffix(".txt")
    table.write_text(table_text(values))
    # Full arrays at 2^min_log2..2^30, or the sweep's shapes by a filter (no size option sets them).
    kind, value = GROUPS[group][5]
    if kind == "filter":
        shapes = [f"--benchmark_filter={value}"]
    elif kind in ("rows", "pow2_rows"):
        shapes = ["--benchmark_filter=^batched/"]
    else:
        shapes = [f"--min_log2={args.min_log2}", "--max_log2=30"]
    command = [args.bench, f"--impl={kernels}", f"--types={types}", f"--ops={ops}", *shapes,
               "--floor=no", "--clocks=gpu,host", "--l2=cold,hot", f"--samples={args.samples}",
               f"--benchmark_out={out_json}", "--benchmark_out_format=json"]
    if os.environ.get("REDU_CODE_ID"):
        command.append(f"--code_id={os.environ['REDU_CODE_ID']}")
    env = dict(os.environ, REDU_TUNING_FILE=str(table))
    print(f"tune_shapes: {group}:", " ".join(f"{k}={v}" for k, v in values.items()), flush=True)
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out_json.read_text())


def tune_group(args, group: str, candidates: dict, tmp: Path):
    """(chosen values, comment lines, context of the runs) for one group."""
    defaults = GROUPS[group][3]
    grid = [dict(zip(candidates, combo)) for combo in itertools.product(*candidates.values())]
    same_grids = SAME_GRIDS.get(group, lambda _: False)
    grid = [c for c in grid if c == defaults or not same_grids(c)]
    if defaults not in grid:
        grid.insert(0, dict(defaults))
    samples = [[] for _ in grid]  # per candidate, one times() per round
    context = None
    shuffle = random.Random(args.seed)

    def measure(indices: list, first_round: int):
        nonlocal context
        order = list(indices)
        for round_number in range(first_round, first_round + args.rounds):
            shuffle.shuffle(order)
            for i in order:
                data = run(args, group, grid[i], tmp / f"{group}-{i}-{round_number}.json")
                context = context or data["context"]
                samples[i].append(times(data))

    kind, value = GROUPS[group][5]
    row_value = value if kind == "rows" else None
    if row_value:  # a row group: only the shapes whose launch a candidate can change
        tried = [defaults[row_value], *candidates[row_value]]
        shortest, longest = min(tried), max(tried)
        scored = lambda case: (row_length(case) or 0) > shortest and (row_length(case) or 0) <= longest
        rows_scored = f"rows of {shortest + 1}..{longest} elements"
    elif kind == "pow2_rows":
        scored = lambda case: 0 < (row_length(case) or 0) <= value and (row_length(case) & (row_length(case) - 1)) == 0
        rows_scored = f"power-of-two rows of up to {value} elements"
    else:
        scored = lambda case: True
    batched = kind in ("rows", "pow2_rows")

    def judged_all() -> list:
        medians = []
        for per_round in samples:
            keys = {k for k in set.intersection(*(set(t) for t in per_round)) if scored(k[2])}
            medians.append(family_best({k: statistics.median(t[k] for t in per_round) for k in keys}))
        baseline = medians[grid.index(defaults)]
        if batched and not baseline:
            raise SystemExit(f"tune_shapes: {group}: no batched shape has {rows_scored}")
        return sorted(((*judge(m, baseline), i) for i, m in enumerate(medians)), key=lambda j: j[0]), baseline

    measure(range(len(grid)), 0)
    judged, baseline = judged_all()
    # A close refusal is re-timed before it stands: a candidate refused by less than twice the tolerance
    # whose score beats every eligible one's may have lost one case to noise (the H200 refused
    # precision.waves 1 at 2.9% in one run and chose it in the run before). It runs --rounds more rounds
    # with the defaults and the best eligible candidate, and every candidate is judged again on all its
    # rounds; a real loss stays a loss.
    eligible = [(s, i) for s, w, _, i in judged if w <= 1 + args.tolerance]
    bar = min([1 - args.margin] + [s for s, _ in eligible])
    close = [i for s, w, _, i in judged if 1 + args.tolerance < w <= 1 + 2 * args.tolerance and s < bar]
    retimed = []
    if close:
        retimed = sorted({*close, grid.index(defaults), *(i for _, i in eligible[:1])})
        measure(retimed, args.rounds)
        judged, baseline = judged_all()
    eligible = [(s, w, grid[i]) for s, w, _, i in judged if w <= 1 + args.tolerance]
    chosen = dict(defaults)
    if eligible and eligible[0][0] < 1 - args.margin:
        chosen = eligible[0][2]
    kernels, types, ops = GROUPS[group][:3]
    if batched:
        cases = sorted({case for (_, case, _) in baseline}, key=lambda c: (row_length(c), int(c.split("x")[0])))
        where = f"batched shapes with {rows_scored} ({', '.join(cases)})"
    elif kind == "filter":
        where = f"the sweep's shapes matching {value}"
    else:
        where = f"2^{args.min_log2}..2^30"
    lines = [f"# {group}: {kernels}; {types} {ops}, {where}, GPU and host clocks, L2 cold and hot,",
             f"#   {args.rounds} shuffled rounds (median per case), the family's fastest kernel per case:",
             "#   score = geometric mean of best time / the defaults' best time (below 1: faster); worst = the",
             f"#   largest such ratio on the GPU clock (a candidate above 1 + {args.tolerance:.0%} is refused):"]
    if retimed:
        lines.append(f"#   re-timed over {args.rounds} more rounds (a close refusal): "
                     + "; ".join(" ".join(f"{k}={v}" for k, v in grid[i].items()) for i in retimed))
    lines += [f"#   {' '.join(f'{k}={v}' for k, v in grid[i].items())}: score {s:.4f}, worst {w:.4f} ({where_worst})"
              + ("" if w <= 1 + args.tolerance else " (refused)") for s, w, where_worst, i in judged]
    if chosen == defaults:
        lines.append(f"#   no eligible candidate beat the defaults by more than {args.margin:.0%}: the defaults")
    return chosen, lines, context


def previous_table(path: Path) -> tuple[dict, dict]:
    """A table written before: each group's comment block (its "# <group>:" line and the "#   " lines
    after it) and every value; both empty when there is none."""
    blocks, values, current = {}, {}, None
    if path.exists():
        for line in path.read_text().splitlines():
            heading = re.match(r"# (\w+): ", line)
            if heading and heading.group(1) in GROUPS:
                current = heading.group(1)
                blocks[current] = [line]
            elif line.startswith("#   ") and current:
                blocks[current].append(line)
            elif line.strip() and not line.startswith("#"):
                name, value = line.split()
                values[name] = int(value)
            else:
                current = None
    return blocks, values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=str(ROOT / "build/bench/reduce_bench"))
    parser.add_argument("--groups", default=",".join(GROUPS), help="groups to tune (default: all)")
    parser.add_argument("--candidates", action="append", default=[], metavar="NAME=V1,V2",
                        help="candidate values for one name, instead of the group's own (repeatable)")
    parser.add_argument("--samples", type=int, default=5, help="timed calls per case and run (median)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of every candidate, in shuffled order")
    parser.add_argument("--seed", type=int, default=20261123, help="the shuffle's seed")
    parser.add_argument("--min_log2", type=int, default=22, help="smallest size timed (2^K elements)")
    parser.add_argument("--margin", type=float, default=0.01,
                        help="a candidate replaces the defaults only when its score is below 1 - margin")
    parser.add_argument("--tolerance", type=float, default=0.02,
                        help="a candidate slower than the defaults by more than this at any case is refused")
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    args = parser.parse_args()
    if args.rounds < 1 or args.samples < 1 or not 10 <= args.min_log2 <= 30:
        raise SystemExit("tune_shapes: --rounds and --samples must be >= 1, --min_log2 in [10, 30]")

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

    chosen, blocks, context = {}, {}, None
    with tempfile.TemporaryDirectory() as tmp:
        for group in groups:
            candidates = {name: overrides.get(name, values) for name, values in GROUPS[group][4].items()}
            values, blocks[group], context = tune_group(args, group, candidates, Path(tmp))
            chosen.update(values)

    if not re.fullmatch(r"[a-z0-9-]+", context["gpu_slug"]):
        raise SystemExit(f"tune_shapes: unexpected GPU slug {context['gpu_slug']!r}")
    path = ROOT / "tuning" / f"{context['gpu_slug']}.txt"
    header = [f"# tuning/{context['gpu_slug']}.txt: run-time launch-shape values for {context['gpu_name']}",
              f"# written by scripts/tune_shapes.py; code_id {context.get('code_id', '?')}, "
              f"CCCL {context.get('cccl_version', '?')}, {context.get('date', '?')}"]
    # Tuning some groups keeps the others' lines of the table already there: a table holds every group.
    untouched = [g for g in GROUPS if g not in groups]
    if untouched:
        previous_blocks, previous_values = previous_table(path)
        kept = [g for g in untouched if g in previous_blocks]
        if kept:
            header.append(f"# this run tuned {', '.join(groups)}; the lines of {', '.join(kept)} are the previous table's")
        blocks.update({g: previous_blocks[g] for g in kept})
        chosen.update({n: previous_values[n] for g in kept for n in GROUPS[g][3] if n in previous_values})
    order = [g for g in GROUPS if g in blocks]  # the table lists the groups in one order, whoever tuned them
    comments = [line for g in order for line in blocks[g]]
    chosen = {n: chosen[n] for g in order for n in GROUPS[g][3] if n in chosen}
    text = "\n".join(header + comments) + "\n" + table_text(chosen)
    print(text, end="")
    if not args.dry_run:
        path.write_text(text)
        print(f"tune_shapes: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
