#!/usr/bin/env python3
"""The claims the study makes about speed, recomputed from the checked-in results: per GPU under results/,
one row per claim with whether it holds (yes; no: every case misses; partly), the worst measured case
and how many cases of how many miss. A claim whose cases are absent from the files reads "not
measured"; a claim made for one GPU model only (a published figure to reach on the H100, a margin over
CUB on the H200) appears only for that GPU.

Ratios are above 1 when the hand-written kernel is faster: CUB's time / the hand-written time (as in
scripts/versus_cub.py), or the reference's time / the kernel's. "Best hand-written" is the fastest row
outside the cub, thrust and floor families, and outside precision.* as well: the compensated sum is
sometimes the fastest f32/f64 sum, and a claim about plain sums should not lean on it (so
scripts/versus_cub.py, which keeps it, can name a better ratio there). halves.* only sums bf16/f16,
where it is the sole hand-written row. Everything comes from results/<gpu>/bench.json (timings
ms_<clock>_<L2>, floor rows) and results/<gpu>/accuracy.json (bits on every GPU).

  scripts/claims.py                          every GPU under results/, every claim, Markdown
  scripts/claims.py --gpu nvidia-h200 --group "Argmin, argmax, min and max"
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))
import results_loader as rl  # noqa: E402

SUMS = ("f32", "i32", "f64")
HALVES = ("bf16", "f16")
GPU_CLOCK = ("gpu_cold", "gpu_hot")
COLD = ("gpu_cold",)
# The sampling shapes of language models: a batch of 1..4096 rows of a vocabulary's logits.
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
    """The cases of a claim: a name each, and the measured value (higher is better)."""
    return pd.DataFrame({"case": [case_name(r, timing) for _, r in table.iterrows()], "value": list(values)})


def ratio(v: float) -> str:
    return f"x{v:.3f}"


def gbps(v: float) -> str:
    return f"{v:.0f} GB/s"


@dataclass
class Verdict:
    holds: str     # yes, no, partly, not measured
    measured: str  # the worst case (and the best, where asked)
    misses: str    # "k of n"


def tally(ok: pd.Series, measured: str) -> Verdict:
    """A verdict from which cases pass."""
    if ok.empty:
        return Verdict("not measured", "–", "–")
    missed = int((~ok).sum())
    holds = "yes" if missed == 0 else "no" if missed == len(ok) else "partly"
    return Verdict(holds, measured, f"{missed} of {len(ok)}")


def verdict(cases: pd.DataFrame, ok: pd.Series, fmt=ratio, best: bool = False) -> Verdict:
    """A verdict naming the worst case (lowest value), and with best the highest too."""
    if cases.empty:
        return tally(ok, "")
    worst = cases.loc[cases["value"].idxmin()]
    measured = f"{fmt(worst['value'])} at {worst['case']}"
    if best:
        top = cases.loc[cases["value"].idxmax()]
        measured = f"worst {measured}; best {fmt(top['value'])} at {top['case']}"
    return tally(ok, measured)


def at_least(cases: pd.DataFrame, bound: float, fmt=ratio, best: bool = False) -> Verdict:
    return verdict(cases, cases["value"] >= bound, fmt, best)


def select(table: pd.DataFrame, kind: str, dtypes, ops, where=None) -> pd.DataFrame:
    table = table[(table["kind"] == kind) & table["dtype"].isin(dtypes) & table["op"].isin(ops)]
    return table[where(table)] if where else table


def versus_cub(res: Results, timings, kind: str, dtypes, ops, where=None) -> pd.DataFrame:
    """Best hand-written against best CUB (CUB time / hand-written time) per problem, in each timing."""
    parts = [as_cases(t, t["ratio"], timing) for timing in timings if timing in res.versus
             for t in [select(res.versus[timing], kind, dtypes, ops, where)]]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({"case": [], "value": []})


def best_rows(res: Results, timing: str, kind: str, dtypes, ops, where=None) -> pd.DataFrame:
    """Per problem: the best hand-written row in `timing` with all its counters (its floor share, GB/s),
    and hand_ms, cub_ms, ratio from the comparison with CUB."""
    keys = ["kind", "dtype", "op", "shape", "n", "segments"]
    rows = res.frame.rename(columns={"impl": "best_hand_written"})
    return select(res.versus[timing], kind, dtypes, ops, where).merge(rows, on=keys + ["best_hand_written"])


def from_n(low: int, high: int = 2**30):
    return lambda t: t["n"].between(low, high)


def is_gpu(res: Results, model: str) -> bool:
    return model in res.ctx["gpu_name"]


# Full-array sums ---------------------------------------------------------------------------------------

def sums_never_lose(res: Results) -> Verdict:
    return at_least(versus_cub(res, rl.TIMINGS, "full", SUMS, ("sum",), from_n(2**16)), 1.0)


def small_sums_by_a_fifth(res: Results) -> Verdict:
    return at_least(versus_cub(res, GPU_CLOCK, "full", SUMS, ("sum",), from_n(2**16, 2**20)), 1.2)


def published_h100_bandwidth(res: Results) -> Verdict | None:
    if not is_gpu(res, "H100"):
        return None
    top = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",), from_n(2**30))
    return at_least(as_cases(top, top["GBps_gpu_cold"], "gpu_cold"), 3230, gbps)


def h200_margin_at_2_30(res: Results) -> Verdict | None:
    if not is_gpu(res, "H200"):
        return None
    top = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",), from_n(2**30))
    return at_least(as_cases(top, top["ratio"], "gpu_cold"), 1.01)


def near_the_floor(res: Results) -> Verdict:
    reads, _ = rl.load_floor(res.gpu)
    large = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",), from_n(2**26)).merge(
        reads[["dtype", "n", "ms_gpu_cold"]], on=["dtype", "n"], suffixes=("", "_floor"))
    return at_least(as_cases(large, large["ms_gpu_cold_floor"] / large["hand_ms"], "gpu_cold"), 1 / 1.03,
                    lambda v: f"x{1 / v:.3f} the floor's time")


# Rows and segments -------------------------------------------------------------------------------------

def batched_never_lose(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "batched", ("f32",), ("sum",)), 1.0)


def segmented_never_lose(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "segmented", ("f32",), ("sum",)), 1.0)


def segmented_h100_bandwidth(res: Results) -> Verdict | None:
    if not is_gpu(res, "H100"):
        return None
    headline = res.ctx["headline"]  # GBps_incl_offsets is of the headline timing
    seg = best_rows(res, headline, "segmented", ("f32",), ("sum",)).dropna(subset=["GBps_incl_offsets"])
    return at_least(as_cases(seg, seg["GBps_incl_offsets"], headline), 2500, gbps, best=True)


def lognormal_segments(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "segmented", ("f32",), ("sum",),
                               lambda t: t["shape"].str.startswith("lognormal")), 1.5)


# Argmin, argmax, min and max ---------------------------------------------------------------------------

ARGS = ("argmax", "argmin")


def args_never_lose(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "full", ("f32", "i32"), ARGS, from_n(2**16)), 1.0)


def args_near_the_floor(res: Results) -> Verdict:
    near = best_rows(res, "gpu_cold", "full", ("f32", "i32"), ARGS, from_n(2**26))
    return at_least(as_cases(near, near["pct_floor_gpu_cold"], "gpu_cold"), 95.0, lambda v: f"{v:.1f}%")


def sampling_rows(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "batched", ("f32",), ("argmax",), lambda t: t["shape"].isin(LM_SHAPES)), 1.2)


def min_max_never_lose(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "full", ("f32", "i32"), ("min", "max")), 1.0)


# Halves and precision ----------------------------------------------------------------------------------

def halves_never_lose(res: Results) -> Verdict:
    return at_least(versus_cub(res, COLD, "full", HALVES, ("sum",)), 1.0)


def halves_floor_share(res: Results) -> Verdict:
    """The best halves kernel's floor share at n minus the best plain f32 sum's at n/2 (same bytes), in points."""
    halves = best_rows(res, "gpu_cold", "full", HALVES, ("sum",)).assign(n_f32=lambda t: t["n"] // 2)
    f32 = best_rows(res, "gpu_cold", "full", ("f32",), ("sum",))[["n", "pct_floor_gpu_cold"]].rename(
        columns={"n": "n_f32", "pct_floor_gpu_cold": "pct_floor_gpu_cold_f32"})
    both = halves.merge(f32, on="n_f32")
    names = [f"{case_name(r, 'gpu_cold')} ({r['pct_floor_gpu_cold']:.1f}% vs f32 2^{log2(r['n_f32'])} "
             f"{r['pct_floor_gpu_cold_f32']:.1f}%)" for _, r in both.iterrows()]
    cases = pd.DataFrame({"case": names, "value": list(both["pct_floor_gpu_cold"] - both["pct_floor_gpu_cold_f32"])})
    return at_least(cases, 0.0, lambda v: f"{v:+.1f} points")


def halves_rows_never_lose(res: Results) -> Verdict:
    return at_least(pd.concat([versus_cub(res, COLD, kind, HALVES, ("sum",)) for kind in ("batched", "segmented")],
                              ignore_index=True), 1.0)


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


def compensated_cost(res: Results) -> Verdict:
    return at_least(against_plain(res, ("precision.compensated_sum", "precision.compensated_atomic"), 2**24), 0.98)


def exact_cost(res: Results) -> Verdict:
    return at_least(against_plain(res, ("precision.exact_sum",), 2**26), 0.95)


def exact_beats_reproducible_cub(res: Results) -> Verdict:
    reference = full_f32_rows(res, "cub.reduce_gpu_to_gpu")[["n", "ms_gpu_cold"]]
    rows = full_f32_rows(res, "precision.exact_sum").merge(reference, on="n", suffixes=("", "_cub"))
    cases = as_cases(rows, rows["ms_gpu_cold_cub"] / rows["ms_gpu_cold"], "gpu_cold")
    return verdict(cases, cases["value"] > 1.0)


def exact_bits(gpu: str) -> pd.DataFrame:
    study = rl.load_study("accuracy.json", gpu)
    rows = pd.DataFrame(study["results"])
    return rows[rows["method"] == "precision.exact_sum"][["dtype", "data", "n", "result_bits"]]


def identical_bits(res: Results) -> Verdict:
    """precision.exact_sum's bits on this GPU against every other GPU's, case by case."""
    has_study = [g for g in rl.gpus() if (rl.RESULTS / g / "accuracy.json").exists()]
    others = [g for g in has_study if g != res.gpu]
    if res.gpu not in has_study or not others:
        return tally(pd.Series(dtype=bool), "")
    mine = exact_bits(res.gpu)
    both = pd.concat([mine.merge(exact_bits(g), on=["dtype", "data", "n"], suffixes=("", "_other")).assign(other=g)
                      for g in others], ignore_index=True)
    differ = both[both["result_bits"] != both["result_bits_other"]]
    measured = (f"equal to {', '.join(others)} on all {len(both)} (dtype, data, n)" if differ.empty else
                "; ".join(f"{r['dtype']} {r['data']} 2^{log2(r['n'])}: {r['result_bits']} vs "
                          f"{r['result_bits_other']} ({r['other']})" for _, r in differ.head(3).iterrows()))
    return tally(both["result_bits"] == both["result_bits_other"], measured)


@dataclass
class Claim:
    group: str
    says: str                                   # the claim in words, with its clock and bound
    check: Callable[[Results], Verdict | None]  # None: not a claim for this GPU model


FULL, ROWS, ARG, PRECISION = ("Full-array sums", "Rows and segments", "Argmin, argmax, min and max",
                              "Halves and precision")
CLAIMS = [
    Claim(FULL, "one launch never loses to CUB's fastest variant: f32/i32/f64 sum, 2^16..2^30, all four timings, "
          "≥ x1.00", sums_never_lose),
    Claim(FULL, "small sums are a fifth faster than CUB's fastest: f32/i32/f64 sum, 2^16..2^20, GPU clock, "
          "≥ x1.20", small_sums_by_a_fifth),
    Claim(FULL, "the f32 sum at 2^30 reaches the best published H100 sum bandwidth: ≥ 3230 GB/s, GPU clock, cold L2",
          published_h100_bandwidth),
    Claim(FULL, "the f32 sum at 2^30 keeps a 1% margin over CUB's fastest on the H200: ≥ x1.01, GPU clock, cold L2",
          h200_margin_at_2_30),
    Claim(FULL, "large f32 sums run within 3% of the floor: from 2^26, GPU clock, cold L2, time ≤ x1.03 the floor's",
          near_the_floor),
    Claim(ROWS, "batched f32 sums never lose to CUB's fixed-size or segmented reduce: every shape, GPU clock, "
          "cold L2, ≥ x1.00", batched_never_lose),
    Claim(ROWS, "segmented f32 sums (offsets) never lose to CUB's fastest: every shape, GPU clock, cold L2, ≥ x1.00",
          segmented_never_lose),
    Claim(ROWS, "segmented f32 sums read 2.5 TB/s on the H100 with the offsets counted: every shape, the headline "
          "timing", segmented_h100_bandwidth),
    Claim(ROWS, "segments of log-normal lengths are 1.5x faster than CUB's fastest: GPU clock, cold L2, ≥ x1.50",
          lognormal_segments),
    Claim(ARG, "argmin and argmax never lose to CUB's fastest: f32/i32, 2^16..2^30, GPU clock, cold L2, ≥ x1.00",
          args_never_lose),
    Claim(ARG, "large argmin and argmax reach 95% of the floor: f32/i32, from 2^26, GPU clock, cold L2",
          args_near_the_floor),
    Claim(ARG, "argmax over sampling rows is 1.2x faster than CUB's fastest: f32, 1..4096 rows of "
          "32000/128256/151936, GPU clock, cold L2, ≥ x1.20", sampling_rows),
    Claim(ARG, "min and max never lose to CUB's fastest: f32/i32, every n, GPU clock, cold L2, ≥ x1.00",
          min_max_never_lose),
    Claim(PRECISION, "bf16/f16 sums never lose to CUB (cub.reduce_halves): every n, GPU clock, cold L2, ≥ x1.00",
          halves_never_lose),
    Claim(PRECISION, "a bf16/f16 sum of n reads as close to the floor as an f32 sum of the same bytes (n/2): "
          "floor share, GPU clock, cold L2, ≥ +0.0 points", halves_floor_share),
    Claim(PRECISION, "batched and segmented bf16/f16 sums never lose to CUB (cub.segmented_halves): every shape, "
          "GPU clock, cold L2, ≥ x1.00", halves_rows_never_lose),
    Claim(PRECISION, "a compensated f32 sum costs at most 2%: the faster of precision.compensated_sum and "
          ".compensated_atomic, from 2^24, GPU clock, cold L2, ≥ x0.98 the best plain sum", compensated_cost),
    Claim(PRECISION, "the exact f32 sum costs at most 5%: precision.exact_sum from 2^26, GPU clock, cold L2, "
          "≥ x0.95 the best plain sum", exact_cost),
    Claim(PRECISION, "the exact f32 sum is faster than CUB's reproducible sum (cub.reduce_gpu_to_gpu): every n, "
          "GPU clock, cold L2", exact_beats_reproducible_cub),
    Claim(PRECISION, "the exact sum gives the same bits on every GPU: precision.exact_sum's result_bits in "
          "accuracy.json", identical_bits),
]
GROUPS = list(dict.fromkeys(c.group for c in CLAIMS))


def evaluate(gpu: str, groups: list[str] | None = None) -> list[tuple[Claim, Verdict]]:
    """The claims that apply to this GPU's model, each with its verdict."""
    res = load(gpu)
    out = []
    for claim in CLAIMS:
        if groups and claim.group not in groups:
            continue
        v = claim.check(res)
        if v is not None:
            out.append((claim, v))
    return out


def markdown(gpu: str, groups: list[str] | None = None) -> list[str]:
    """One table per group: claim, holds, worst case, misses."""
    lines = []
    verdicts = evaluate(gpu, groups)
    for group in GROUPS:
        rows = [(c, v) for c, v in verdicts if c.group == group]
        if not rows:
            continue
        lines += [f"**{group}**", "", "| claim | holds | worst case | misses |", "| --- | --- | --- | --- |"]
        lines += [f"| {c.says} | {v.holds} | {v.measured} | {v.misses} |" for c, v in rows]
        lines.append("")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="append", help="results/<gpu> folder (default: every one)")
    parser.add_argument("--group", action="append", choices=GROUPS, help="a group of claims (default: every one)")
    args = parser.parse_args()
    for gpu in args.gpu or rl.gpus():
        ctx = rl.load_bench(gpu)[1]
        print("\n".join([f"### {ctx['gpu_name']} (results/{gpu}/bench.json)", ""] + markdown(gpu, args.group)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
