#!/usr/bin/env python3
"""Generate the README's measured parts from results/<gpu>/: the findings (between the findings markers),
the provenance lines and the yardstick table (between the results-table markers), and the headline figure.

  scripts/readme_results.py            rewrite both blocks of README.md and notebooks/figures/headline.png
  scripts/readme_results.py --check    fail if README.md's blocks are not what the results give (CI)

Every number in the README's prose comes from here, so it changes only when the results do. The full
tables, each file's provenance and the claims are in results/README.md (scripts/results_report.py).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))
sys.path.insert(0, str(ROOT / "scripts"))
import pandas as pd  # noqa: E402
import claims  # noqa: E402
import results_loader as rl  # noqa: E402
import results_report as rr  # noqa: E402

README = ROOT / "README.md"
FIGURE = ROOT / "notebooks" / "figures" / "headline.png"
BLOCKS = ("findings", "results-table")
NB = {1: "notebooks/01_harris_step_by_step.ipynb", 2: "notebooks/02_batched_and_segmented.ipynb",
      3: "notebooks/03_beating_cub.ipynb", 4: "notebooks/04_accuracy_and_determinism.ipynb",
      7: "notebooks/07_beyond_one_gpu.ipynb", 8: "notebooks/08_operators.ipynb"}


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def nb(k: int) -> str:
    return f"([notebook {k}]({NB[k]}))"


def span(values) -> str:
    """×a–b of a collection of ratios, with a third decimal where two would read as a tie (1.00)."""
    values = list(values)
    digits = 3 if "1.00" in (f"{min(values):.2f}", f"{max(values):.2f}") else 2
    lo, hi = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"×{lo}" if lo == hi else f"×{lo}–{hi}"


def sizes(ns, joiner: str = "–") -> str:
    ns = sorted(ns)
    return rr.fmt_n(ns[0]) if len(ns) == 1 else f"{rr.fmt_n(ns[0])}{joiner}{rr.fmt_n(ns[-1])}"


def per_gpu(values: dict, fmt) -> str:
    """'×5.96 on the H100, ×8.91 on the H200'."""
    return ", ".join(f"{fmt(v)} on the {rr.short(name)}" for name, v in values.items())


# The findings ------------------------------------------------------------------------------------------

def f32_versus_cub(frames: dict) -> pd.DataFrame:
    """f32 sum, GPU clock, cold L2: per n, the ratio (best CUB time / best hand-written) on every GPU."""
    return pd.DataFrame({g: rr.float_sums(rl.versus_best_cub(f, "gpu_cold")).set_index("n")["ratio"]
                         for g, (f, _) in frames.items()}).dropna()


def winning_run(ratios: pd.DataFrame) -> list[int]:
    """The longest run of consecutive sizes at which the hand-written kernel wins on every GPU."""
    best, run = [], []
    for n, row in ratios.iterrows():
        run = run + [n] if row.min() >= 1 else []
        best = run if len(run) > len(best) else best
    return best


def harris(frames: dict, names: dict) -> str:
    top, steps = {}, []
    for g, (f, _) in frames.items():
        full = rr.float_sums(f)
        h = full[full["impl"].str.startswith("harris.")].pivot_table(index="n", columns="impl", values="ms_gpu_cold")
        n = h.index.max()
        r = h.loc[n]
        top[names[g]] = r["harris.reduce0"] / r["harris.reduce6"]
        steps += [r["harris.reduce3"] / r["harris.reduce4"], r["harris.reduce4"] / r["harris.reduce5"]]
    return (f"**Harris's ladder still climbs, but not where it did.** reduce0 → reduce6 is "
            f"{per_gpu(top, lambda v: f'×{v:.2f}')} at {rr.fmt_n(n)} (f32, GPU clock, cold L2; ×30 on a G80 in his "
            f"slides); the two unrolling steps give {span(steps)}: on Hopper the steps that change the loads carry "
            f"it {nb(1)}.")


def one_launch(ratios: pd.DataFrame) -> tuple[str, str, str]:
    run = winning_run(ratios)
    inside = ratios.loc[run].values.ravel()
    below = ratios[ratios.index < run[0]]
    lost_below = below[below.min(axis=1) < 1]
    above = ratios[ratios.index > run[-1]]
    win = (f"**One launch beats CUB's fastest variant from {sizes(run, ' to ')}** on every GPU measured, by "
           f"{span(inside)} (f32 sum, GPU clock, cold L2): a single pass whose last block, or an atomic, "
           f"finishes the sum {nb(3)}.")
    small = (f"**Where CUB wins: small arrays.** At {sizes(lost_below.index)} CUB's fastest variant is faster, "
             f"{span(list(lost_below.min(axis=1)))} at worst per size, where a call costs little more "
             f"than its launch {nb(3)}.") if not lost_below.empty else ""
    large = (f"**Large arrays are close to a tie** at {sizes(above.index)}: {span(above.values.ravel())}, both within a few "
             f"percent of the floor") if not above.empty else ""
    return win, small, large


def repeats_note() -> str:
    notes = []
    for g in rl.gpus_with("repeat_full.json"):
        outcomes, reps = rr.repeat_outcomes("repeat_full.json", g)
        cold = outcomes[outcomes["timing"] == "gpu_cold"]
        always = cold[cold["lost"] == reps]
        name = rl.load_bench(g)[1]["gpu_name"]
        notes.append(f"timed {reps} times interleaved on the {rr.short(name)}, {len(always)} of its "
                     f"{len(cold)} near-ties lost in every repetition (GPU clock, cold L2): small, but real")
    return "; ".join(notes)


def operators(frames: dict) -> str:
    beat, hand_cost, cub_cost = [], [], []
    for g, (f, _) in frames.items():
        v = rl.versus_best_cub(f, "gpu_cold")
        v = v[(v["kind"] == "full") & (v["dtype"] == "f32") & (v["n"] >= 1 << 16)]
        arg = v[v["op"] == "argmax"].set_index("n")
        s = v[v["op"] == "sum"].set_index("n")
        both = arg.join(s, rsuffix="_sum", how="inner")
        beat += list(both["ratio"])
        hand_cost += list(both["hand_ms"] / both["hand_ms_sum"])
        cub_cost += list(both["cub_ms"] / both["cub_ms_sum"])
    return (f"**Argmax by hand costs about a sum.** From 2^16 to 2^30 the f32 argmax takes {span(hand_cost)} the "
            f"time of the best f32 sum, CUB's {span(cub_cost)} of its own, and the hand-written one beats CUB's "
            f"fastest by {span(beat)} (GPU clock, cold L2) {nb(8)}.")


def segments(gpus: list[str], names: dict) -> str:
    lognormal, offsets = {}, []
    for g in gpus:
        res = claims.load(g)
        cases = claims.versus_cub(res, claims.COLD, "segmented", ("f32",), ("sum",))
        lognormal[names[g]] = cases[cases["case"].str.startswith("lognormal")]["value"].min()
        offsets += list(cases[cases["value"] < 1]["value"])
    loss = (f"; on long segments of equal length it still loses, {span(offsets)} at worst"
            if offsets else "")
    return (f"**Picking the mapping by segment length pays on skewed segments:** on log-normal lengths it beats "
            f"CUB's fastest segmented reduce {per_gpu(lognormal, lambda v: f'×{v:.2f}')}{loss} (f32 sum, offsets, "
            f"GPU clock, cold L2) {nb(2)}.")


def exact_sum(gpus: list[str]) -> str:
    cost, versus, bits = [], [], None
    for g in gpus:
        res = claims.load(g)
        cost += list(claims.against_plain(res, ("precision.exact_sum",), 1 << 26)["value"])
        reference = claims.full_f32_rows(res, "cub.reduce_gpu_to_gpu").set_index("n")["ms_gpu_cold"]
        mine = claims.full_f32_rows(res, "precision.exact_sum").set_index("n")["ms_gpu_cold"]
        versus += list((reference / mine).dropna())
        bits = claims.identical_bits(res)
    same = f"the same bits on every GPU in {bits.misses.split(' of ')[1]} of {bits.misses.split(' of ')[1]} cases" \
        if bits and bits.holds == "yes" else f"bits that differ between GPUs ({bits.measured})" if bits else ""
    return (f"**An exact float sum costs little where it matters:** rounded once from integer limbs, it gives "
            f"{same}, beats CUB's reproducible sum by {span(versus)} at every n, and runs at {span(cost)} the best "
            f"plain sum's speed from 2^26 (GPU clock, cold L2) {nb(4)}.")


def multi_gpu(gpus: list[str]) -> str:
    for g in gpus:
        path = rl.RESULTS / g / "multigpu.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        r = pd.DataFrame(data["results"])
        a = r[(r["kind"] == "all_reduce") & (r["dtype"] == "f32") & (r["clock"] == "gpu")]
        small = a[a["bytes"] == a["bytes"].min()].set_index("variant")["us"]
        s = r[(r["kind"] == "sharded_sum") & (r["clock"] == "gpu")].set_index("variant")["us"]
        one = s[[v for v in s.index if v.startswith("one_gpu.")][0]]
        two = s[[v for v in s.index if v.startswith("sharded.")][0]]
        world = data["context"]["world_size"]
        name = rr.short(data["context"]["gpu_name"])
        return (f"**Beyond one GPU, a barrier is the cost:** on {world}×{name} an all-reduce that pushes flagged "
                f"words takes {small['one_shot_push']:.2f} µs for {int(a['bytes'].min())} bytes against NCCL's "
                f"{small['nccl']:.2f} (×{small['nccl'] / small['one_shot_push']:.2f}), and a sum sharded over the "
                f"{world} GPUs runs ×{one / two:.2f} as fast as on one (GPU clock) {nb(7)}.")
    return ""


def findings() -> str:
    gpus = rl.gpus()
    frames = {g: rl.load_bench(g) for g in gpus}
    names = {g: ctx["gpu_name"] for g, (_, ctx) in frames.items()}
    ratios = f32_versus_cub(frames)
    win, small, large = one_launch(ratios)
    note = repeats_note()
    if large:
        large += (f"; {note} {nb(3)}." if note else f" {nb(3)}.")
    lines = [harris(frames, names), win, small, large, operators(frames), segments(gpus, names), exact_sum(gpus),
             multi_gpu(gpus)]
    return "\n".join(f"- {line}" for line in lines if line)


# The provenance lines and the yardstick ----------------------------------------------------------------

def results_table() -> str:
    gpus = rl.gpus()
    frames = {g: rl.load_bench(g) for g in gpus}
    names = {g: ctx["gpu_name"] for g, (_, ctx) in frames.items()}
    provs = [rr.gpu_provenance(g) for g in gpus]
    latest = rr.newest(provs)
    lines = [f"- {rr.provenance_line(p, latest)}" for p in provs]
    lines += ["", "The fastest hand-written kernel's speed over the fastest CUB variant's (above 1: hand-written "
              "faster), f32 sum, per GPU, clock and L2 state:", ""]
    lines += rr.yardstick(frames, names)
    return "\n".join(lines)


# The headline figure -----------------------------------------------------------------------------------

def headline_figure(path: Path = FIGURE) -> None:
    """Time over the floor's against n, per GPU: the best hand-written f32 sum and the best CUB variant
    (GPU clock, cold L2), log2 n on the x axis, the ratio on a log y axis; the floor is 1."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    gpus = rl.gpus()
    fig, axes = plt.subplots(1, len(gpus), figsize=(5.2 * len(gpus), 3.9), sharey=True, squeeze=False)
    for ax, gpu in zip(axes[0], gpus):
        frame, ctx = rl.load_bench(gpu)
        t = rr.over_floor(gpu, frame)
        x = [rr.log2(n) for n in t.index]
        ax.plot(x, t["hand"], "-o", ms=3, lw=1.8, color="tab:blue", label="best hand-written")
        ax.plot(x, t["cub"], "--s", ms=3, lw=1.5, color="tab:orange", label="best CUB variant")
        ax.axhline(1.0, color="black", lw=1.2, label="floor (a plain read of the same bytes)")
        ax.fill_between(x, t["hand"], t["cub"], where=t["hand"] < t["cub"], color="tab:blue", alpha=0.12, lw=0,
                        interpolate=True)
        ax.fill_between(x, t["hand"], t["cub"], where=t["hand"] > t["cub"], color="tab:orange", alpha=0.18, lw=0,
                        interpolate=True)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(FixedLocator([1.0, 1.1, 1.2, 1.3, 1.5, 1.7]))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.1f"))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(range(min(x), max(x) + 1, 2))
        ax.set_xlabel("log2 n (f32 elements)")
        ax.set_title(f"{ctx['gpu_name']}, CCCL {ctx['cccl_version']}", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("time / floor's time (lower is better)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=9, frameon=False)
    fig.suptitle("Full-array f32 sum, GPU clock, cold L2 (shaded: the gap, blue where hand-written wins)", fontsize=11)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def render(text: str) -> str:
    for name, body in (("findings", findings()), ("results-table", results_table())):
        begin, end = markers(name)
        if begin not in text or end not in text:
            raise SystemExit(f"README.md lacks the {name} markers ({begin} ... {end})")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + begin + "\n" + body + "\n" + end + tail
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify README.md instead of rewriting it")
    args = parser.parse_args()
    text = README.read_text()
    wanted = render(text)
    if args.check:
        if wanted != text:
            print("README.md's generated blocks differ from what results/ gives: run scripts/readme_results.py",
                  file=sys.stderr)
            return 1
        print("README generated blocks match results/")
        return 0
    README.write_text(wanted)
    headline_figure()
    print("README.md blocks and notebooks/figures/headline.png regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
