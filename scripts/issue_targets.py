#!/usr/bin/env python3
"""Where the open issues' performance targets stand, recomputed from the checked-in results: per GPU under
results/, one Markdown table per issue (17 portable speed, 18 argmin/argmax, 19 precision) with, for each
target, whether it holds (yes; no: every case misses; partly), the worst measured case and how many cases
of how many miss. A target without rows in the files reads "not measured"; a target set for one GPU only
(3230 GB/s and 2.5 TB/s on the H100, x1.01 CUB on the H200) appears only in that GPU's table.

Ratios are above 1 when the hand-written kernel is faster: CUB's time / the hand-written time (as in
scripts/versus_cub.py), or the reference's time / the kernel's. "Best hand-written" is the fastest row
outside the cub, thrust and floor families, and outside precision.* as well: the compensated sum is
sometimes the fastest f32/f64 sum, so scripts/versus_cub.py can name a better ratio there. halves.* only
sums bf16/f16, where it is the sole hand-written row. Everything comes from results/<gpu>/bench.json
(timings ms_<clock>_<L2>, floor rows) and results/<gpu>/accuracy.json (target 12).

  scripts/issue_targets.py                          every GPU under results/, every issue
  scripts/issue_targets.py --gpu nvidia-h200 --issue 18
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))
import results_loader as rl  # noqa: E402

SUMS = ("f32", "i32", "f64")
HALVES = ("bf16", "f16")
GPU_CLOCK = ("gpu_cold", "gpu_hot")
COLD = ("gpu_cold",)
LM_SHAPES = {f"{rows}x{cols}" for rows in (1, 8, 64, 512, 4096) for cols in (32000, 128256, 151936)}


@dataclass
class Results:
    gpu: str
    ctx: dict
    frame: pd.DataFrame              # every benchmarked row of bench.json
    versus: dict[str, pd.DataFrame]  # per timing: best hand-written (precision.* left out) against best CUB


def load(gpu: str) -> Results:
    frame, ctx = rl.load_bench(gpu)
    plain = frame[frame["family"] != "precision"]
    return Results(gpu, ctx, frame, {t: rl.versus_best_cub(plain, t) for t in rl.timings(frame)})


def log2(n) -> int:
    return int(n).bit_length() - 1


def case_name(row, timing: str) -> str:
    if row["kind"] != "full":
        return f"{row['shape']} {timing}"
    op = "" if row["op"] == "sum" else f" {row['op']}"
    return f"{row['dtype']}{op} 2^{log2(row['n'])} {timing}"


def as_cases(table: pd.DataFrame, values, timing: str) -> pd.DataFrame:
    """The cases of a target: a name each, and the measured value (higher is better)."""
    return pd.DataFrame({"case": [case_name(r, timing) for _, r in table.iterrows()], "value": list(values)})


def ratio(v: float) -> str:
    return f"x{v:.3f}"


def gbps(v: float) -> str:
    return f"{v:.0f} GB/s"


def row(target: str, ok: pd.Series, measured: str) -> list[str]:
    """A table row from which cases pass: holds, measured, misses."""
    if ok.empty:
        return [target, "not measured", "–", "–"]
    missed = int((~ok).sum())
    holds = "yes" if missed == 0 else "no" if missed == len(ok) else "partly"
    return [target, holds, measured, f"{missed} of {len(ok)}"]


def verdict(target: str, cases: pd.DataFrame, ok: pd.Series, fmt=ratio, best: bool = False) -> list[str]:
    """A table row naming the worst case (lowest value), and with best the highest too."""
    if cases.empty:
        return row(target, ok, "")
    worst = cases.loc[cases["value"].idxmin()]
    measured = f"{fmt(worst['value'])} at {worst['case']}"
    if best:
        top = cases.loc[cases["value"].idxmax()]
        measured = f"worst {measured}; best {fmt(top['value'])} at {top['case']}"
    return row(target, ok, measured)


def at_least(target: str, cases: pd.DataFrame, bound: float, fmt=ratio, best: bool = False) -> list[str]:
    return verdict(target, cases, cases["value"] >= bound, fmt, best)


def select(table: pd.DataFrame, kind: str, dtypes, ops, where=None) -> pd.DataFrame:
    table = table[(table["kind"] == kind) & table["dtype"].isin(dtypes) & table["op"].isin(ops)]
    return table[where(table)] if where else table


def versus_cub(res: Results, timings, kind: str, dtypes, ops, where=None) -> pd.DataFrame:
    """Best hand-written against best CUB (CUB time / hand-written time) per problem, in each timing."""
    parts = [as_cases(t, t["ratio"], timing) for timing in timings if timing in res.versus
             for t in [select(res.versus[timing], kind, dtypes, ops, where)]]
    return pd.concat(parts, ignore_index=True)


def best_rows(res: Results, timing: str, kind: str, dtypes, ops, where=None) -> pd.DataFrame:
    """Per problem: the best hand-written row in `timing` with all its counters (its floor share, GB/s),
    and hand_ms, cub_ms, ratio from the comparison with CUB."""
    keys = ["kind", "dtype", "op", "shape", "n", "segments"]
    rows = res.frame.rename(columns={"impl": "best_hand_written"})
    return select(res.versus[timing], kind, dtypes, ops, where).merge(rows, on=keys + ["best_hand_written"])


def from_n(low: int, high: int = 2**30):
    return lambda t: t["n"].between(low, high)


def full_sum(res: Results) -> list[list[str]]:
    """Targets 1 and 2: the full-array f32/i32/f64 sum against the best CUB variant."""
    return [
        at_least("1. f32/i32/f64 sum, 2^16..2^30, all four timings: ≥ x1.00 best CUB",
                 versus_cub(res, rl.TIMINGS, "full", SUMS, ("sum",), from_n(2**16)), 1.0),
        at_least("2. f32/i32/f64 sum, 2^16..2^20, gpu_cold and gpu_hot: ≥ x1.20 best CUB",
                 versus_cub(res, GPU_CLOCK, "full", SUMS, ("sum",), from_n(2**16, 2**20)), 1.2),
    ]


def large_n(res: Results) -> list[list[str]]:
    """Target 3: the f32 sum at large n against the H100's bandwidth goal, CUB on the H200, and the floor."""
    rows = []
    top = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",), from_n(2**30))
    if "H100" in res.ctx["gpu_name"]:
        rows.append(at_least("3. f32 sum 2^30, gpu_cold: ≥ 3230 GB/s (H100)",
                             as_cases(top, top["GBps_gpu_cold"], "gpu_cold"), 3230, gbps))
    if "H200" in res.ctx["gpu_name"]:
        rows.append(at_least("3. f32 sum 2^30, gpu_cold: ≥ x1.01 best CUB (H200)",
                             as_cases(top, top["ratio"], "gpu_cold"), 1.01))
    reads, _ = rl.load_floor(res.gpu)
    large = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",), from_n(2**26)).merge(
        reads[["dtype", "n", "ms_gpu_cold"]], on=["dtype", "n"], suffixes=("", "_floor"))
    rows.append(at_least("3. f32 sum from 2^26, gpu_cold: time ≤ x1.03 the floor's",
                         as_cases(large, large["ms_gpu_cold_floor"] / large["hand_ms"], "gpu_cold"), 1 / 1.03,
                         lambda v: f"x{1 / v:.3f} the floor's time"))
    return rows


def batched_and_segmented(res: Results) -> list[list[str]]:
    """Targets 4 and 5: many rows (batched) or segments (offsets) of an f32 sum."""
    rows = [
        at_least("4. batched f32 sum, every shape, gpu_cold: ≥ x1.00 best CUB fixed-size/segmented",
                 versus_cub(res, COLD, "batched", ("f32",), ("sum",)), 1.0),
        at_least("5. segmented f32 sum, every shape, gpu_cold: ≥ x1.00 best CUB",
                 versus_cub(res, COLD, "segmented", ("f32",), ("sum",)), 1.0),
    ]
    if "H100" in res.ctx["gpu_name"]:
        headline = res.ctx["headline"]  # GBps_incl_offsets is of the headline timing
        seg = best_rows(res, headline, "segmented", ("f32",), ("sum",)).dropna(subset=["GBps_incl_offsets"])
        rows.append(at_least(f"5. segmented f32 sum, offsets counted ({headline}): ≥ 2500 GB/s (H100)",
                             as_cases(seg, seg["GBps_incl_offsets"], headline), 2500, gbps, best=True))
    rows.append(at_least("5. segmented f32 sum, log-normal segments, gpu_cold: ≥ x1.50 best CUB",
                         versus_cub(res, COLD, "segmented", ("f32",), ("sum",),
                                    lambda t: t["shape"].str.startswith("lognormal")), 1.5))
    return rows


def issue17(res: Results) -> list[list[str]]:
    return full_sum(res) + large_n(res) + batched_and_segmented(res)


def issue18(res: Results) -> list[list[str]]:
    """Targets 6-8: argmax/argmin over a full array and over the sampling shapes' rows, min and max."""
    args = ("argmax", "argmin")
    near_floor = best_rows(res, "gpu_cold", "full", ("f32", "i32"), args, from_n(2**26))
    return [
        at_least("6. f32/i32 argmax/argmin, 2^16..2^30, gpu_cold: ≥ x1.00 best CUB",
                 versus_cub(res, COLD, "full", ("f32", "i32"), args, from_n(2**16)), 1.0),
        at_least("6. f32/i32 argmax/argmin from 2^26, gpu_cold: ≥ 95% of the floor",
                 as_cases(near_floor, near_floor["pct_floor_gpu_cold"], "gpu_cold"), 95.0, lambda v: f"{v:.1f}%"),
        at_least("7. batched f32 argmax, rows 1..4096 of 32000/128256/151936, gpu_cold: ≥ x1.20 best CUB",
                 versus_cub(res, COLD, "batched", ("f32",), ("argmax",), lambda t: t["shape"].isin(LM_SHAPES)), 1.2),
        at_least("8. f32/i32 min and max, every n, gpu_cold: ≥ x1.00 best CUB",
                 versus_cub(res, COLD, "full", ("f32", "i32"), ("min", "max")), 1.0),
    ]


def halves_floor_share(res: Results) -> pd.DataFrame:
    """Target 9's second half: the best halves kernel's floor share at n minus the best plain f32 sum's at n/2 (same
    bytes), in points."""
    halves = best_rows(res, "gpu_cold", "full", HALVES, ("sum",)).assign(n_f32=lambda t: t["n"] // 2)
    f32 = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",))[["n", "pct_floor_gpu_cold"]].rename(
        columns={"n": "n_f32", "pct_floor_gpu_cold": "pct_floor_gpu_cold_f32"})
    both = halves.merge(f32, on="n_f32")
    names = [f"{case_name(r, 'gpu_cold')} ({r['pct_floor_gpu_cold']:.1f}% vs f32 2^{log2(r['n_f32'])} "
             f"{r['pct_floor_gpu_cold_f32']:.1f}%)" for _, r in both.iterrows()]
    return pd.DataFrame({"case": names, "value": list(both["pct_floor_gpu_cold"] - both["pct_floor_gpu_cold_f32"])})


def full_f32_rows(res: Results, impl: str) -> pd.DataFrame:
    f = res.frame
    return f[(f["impl"] == impl) & (f["kind"] == "full") & (f["dtype"] == "f32") & (f["op"] == "sum")]


def against_plain(res: Results, impls: tuple[str, ...], low: int) -> pd.DataFrame:
    """The fastest of impls' f32 sums from n = low: the best plain hand-written time / its time (gpu_cold)."""
    best = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",), from_n(low))[["n", "hand_ms"]]
    rows = pd.concat([full_f32_rows(res, impl) for impl in impls])
    mine = rows.loc[rows.groupby("n")["ms_gpu_cold"].idxmin()]
    rows = mine.merge(best, on="n")
    return as_cases(rows, rows["hand_ms"] / rows["ms_gpu_cold"], "gpu_cold")


def exact_versus_gpu_to_gpu(res: Results) -> list[str]:
    """Target 11's second half: cub.reduce_gpu_to_gpu's time / precision.exact_sum's, every f32 n."""
    reference = full_f32_rows(res, "cub.reduce_gpu_to_gpu")[["n", "ms_gpu_cold"]]
    rows = full_f32_rows(res, "precision.exact_sum").merge(reference, on="n", suffixes=("", "_cub"))
    cases = as_cases(rows, rows["ms_gpu_cold_cub"] / rows["ms_gpu_cold"], "gpu_cold")
    return verdict("11. precision.exact_sum f32, every n, gpu_cold: faster than cub.reduce_gpu_to_gpu",
                   cases, cases["value"] > 1.0)


def exact_bits(gpu: str) -> pd.DataFrame:
    study = rl.load_study("accuracy.json", gpu)
    rows = pd.DataFrame(study["results"])
    return rows[rows["method"] == "precision.exact_sum"][["dtype", "data", "n", "result_bits"]]


def identical_bits(res: Results) -> list[str]:
    """Target 12: precision.exact_sum's bits on this GPU against every other GPU's, case by case."""
    target = "12. precision.exact_sum: identical result_bits on every GPU (accuracy.json)"
    has_study = [g for g in rl.gpus() if (rl.RESULTS / g / "accuracy.json").exists()]
    others = [g for g in has_study if g != res.gpu]
    if res.gpu not in has_study or not others:
        return row(target, pd.Series(dtype=bool), "")
    mine = exact_bits(res.gpu)
    both = pd.concat([mine.merge(exact_bits(g), on=["dtype", "data", "n"], suffixes=("", "_other")).assign(other=g)
                      for g in others], ignore_index=True)
    differ = both[both["result_bits"] != both["result_bits_other"]]
    measured = (f"equal to {', '.join(others)} on all {len(both)} (dtype, data, n)" if differ.empty else
                "; ".join(f"{r['dtype']} {r['data']} 2^{log2(r['n'])}: {r['result_bits']} vs "
                          f"{r['result_bits_other']} ({r['other']})" for _, r in differ.head(3).iterrows()))
    return row(target, both["result_bits"] == both["result_bits_other"], measured)


def issue19(res: Results) -> list[list[str]]:
    """Targets 9-12: bf16/f16 sums, the compensated and the reproducible f32 sums, bit-identical results."""
    halves = halves_floor_share(res)
    return [
        at_least("9. bf16/f16 sum, best halves kernel, every n, gpu_cold: ≥ x1.00 cub.reduce_halves",
                 versus_cub(res, COLD, "full", HALVES, ("sum",)), 1.0),
        at_least("9. bf16/f16 sum at n, best halves kernel, gpu_cold: floor share ≥ best plain f32 sum's at n/2",
                 halves, 0.0, lambda v: f"{v:+.1f} points"),
        at_least("9. batched and segmented bf16/f16 sum, every shape, gpu_cold: ≥ x1.00 cub.segmented_halves",
                 pd.concat([versus_cub(res, COLD, kind, HALVES, ("sum",)) for kind in ("batched", "segmented")],
                           ignore_index=True), 1.0),
        at_least("10. compensated f32 sum (best of precision.compensated_sum, .compensated_atomic) from 2^24, "
                 "gpu_cold: ≥ x0.98 best plain sum",
                 against_plain(res, ("precision.compensated_sum", "precision.compensated_atomic"), 2**24), 0.98),
        at_least("11. precision.exact_sum f32 from 2^26, gpu_cold: ≥ x0.95 best plain sum",
                 against_plain(res, ("precision.exact_sum",), 2**26), 0.95),
        exact_versus_gpu_to_gpu(res),
        identical_bits(res),
    ]


ISSUES = {17: ("portable speed", issue17), 18: ("argmin/argmax", issue18), 19: ("precision", issue19)}


def report(gpu: str, issues: list[int]) -> str:
    res = load(gpu)
    out = [f"### {res.ctx['gpu_name']} (CCCL {res.ctx['cccl_version']}, code_id {res.ctx['code_id']})", ""]
    for number in issues:
        title, check = ISSUES[number]
        out += [f"**Issue {number}** ({title})", "", "| target | holds | measured | misses |",
                "| --- | --- | --- | --- |"]
        out += ["| " + " | ".join(cells) + " |" for cells in check(res)]
        out.append("")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="append", help="results/<gpu> folder (default: every one)")
    parser.add_argument("--issue", type=int, action="append", choices=sorted(ISSUES),
                        help="issue number (default: every one)")
    args = parser.parse_args()
    for gpu in args.gpu or rl.gpus():
        print(report(gpu, args.issue or sorted(ISSUES)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
