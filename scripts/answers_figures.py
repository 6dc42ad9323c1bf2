#!/usr/bin/env python3
"""Generate the measured figures of the instructor's key (docs/instructor/answers.md) from results/.

Every number the key quotes sits in a block between <!-- answers-<name>:begin --> and
<!-- answers-<name>:end -->, written here from the results files through notebooks/results_loader.py
(and the source constants a napkin needs, read from the source files), so the key changes only when the
results or the code do.

  scripts/answers_figures.py            rewrite the blocks of docs/instructor/answers.md
  scripts/answers_figures.py --check    fail if a block is not what the results give (the docs check runs it)

Times are the GPU clock with a cold L2 unless a block says otherwise (docs/benchmarking.md).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))
sys.path.insert(0, str(ROOT / "scripts"))
import pandas as pd  # noqa: E402
import results_loader as rl  # noqa: E402
import results_report as rr  # noqa: E402

ANSWERS = ROOT / "docs" / "instructor" / "answers.md"
TIMING = "gpu_cold"
HARRIS = [f"harris.reduce{k}" for k in range(7)]


def frames() -> dict:
    return {g: rl.load_bench(g) for g in rl.gpus()}


def name(ctx: dict) -> str:
    return rr.short(ctx["gpu_name"])


def row(frame: pd.DataFrame, impl: str, n: int, dtype: str = "f32", op: str = "sum", kind: str = "full",
        shape: str | None = None) -> pd.Series | None:
    r = frame[(frame["impl"] == impl) & (frame["dtype"] == dtype) & (frame["op"] == op) & (frame["kind"] == kind)]
    r = r[r["shape"] == shape] if shape is not None else r[r["n"] == n]
    return None if r.empty else r.iloc[0]


def gbps(frame, impl, n, **kw) -> float:
    r = row(frame, impl, n, **kw)
    return float("nan") if r is None else float(r[f"GBps_{TIMING}"])


def us(frame, impl, n, timing: str = TIMING, **kw) -> float:
    r = row(frame, impl, n, **kw)
    return float("nan") if r is None else 1e3 * float(r[f"ms_{timing}"])


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def cell(x: float, fmt: str = "{:.0f}") -> str:
    return "–" if pd.isna(x) else fmt.format(x)


def source_constant(path: str, pattern: str) -> int:
    match = re.search(pattern, (ROOT / path).read_text())
    if not match:
        raise SystemExit(f"answers_figures: {pattern!r} not found in {path}")
    return int(match.group(1))


# Lessons 1 and 2: the ladder, and reduce6's napkin ---------------------------------------------------

def g80_gbps() -> dict:
    """Harris's G80 GB/s per kernel, as each kernel's header quotes his table."""
    out = {}
    for k, impl in enumerate(HARRIS):
        header = next((ROOT / "handwritten" / "harris").glob(f"0{k}_*.cuh")).read_text()
        out[impl] = float(re.search(r"G80 figure \([^)]*\): [\d.]+ ms, ([\d.]+) GB/s", header).group(1))
    return out


def ladder(fr: dict) -> list[str]:
    g80 = g80_gbps()
    lines = []
    for dtype, n in (("i32", 1 << 22), ("f32", 1 << 26)):
        header = ["kernel", "G80 GB/s", "G80 step"]
        for _, ctx in fr.values():
            header += [f"{name(ctx)} GB/s", f"{name(ctx)} step"]
        rows = []
        for k, impl in enumerate(HARRIS):
            cells = [f"`{impl}`", cell(g80[impl], "{:.1f}"), "–" if k == 0 else f"×{g80[impl] / g80[HARRIS[k - 1]]:.2f}"]
            for frame, _ in fr.values():
                now = gbps(frame, impl, n, dtype=dtype)
                cells += [cell(now), "–" if k == 0 else cell(now / gbps(frame, HARRIS[k - 1], n, dtype=dtype), "×{:.2f}")]
            rows.append(cells)
        total = [f"×{g80[HARRIS[-1]] / g80[HARRIS[0]]:.1f}"] + [
            cell(gbps(f, HARRIS[-1], n, dtype=dtype) / gbps(f, HARRIS[0], n, dtype=dtype), "×{:.1f}") for f, _ in fr.values()]
        lines += [f"**{dtype} sum of {rr.fmt_n(n)} elements**" + (" (Harris's 4M ints)" if n == 1 << 22 else ""), ""]
        lines += table(header, rows)
        lines += ["", "reduce0 → reduce6: G80 " + total[0] + ", " + ", ".join(
            f"{name(ctx)} {t}" for (_, ctx), t in zip(fr.values(), total[1:])) + ".", ""]
    return lines[:-1]


def napkin(fr: dict) -> list[str]:
    blocks = source_constant("handwritten/harris/06_multiple_elements_per_thread.cu", r"grid_blocks = (\d+);")
    threads = source_constant("handwritten/harris/multi_pass_driver.cuh", r"harris_block_threads = (\d+);")
    max_threads_per_sm = 2048  # resident threads per SM on the measured GPUs (Hopper)
    n = 1 << 26
    rows = []
    for frame, ctx in fr.values():
        sms = int(ctx["sm_count"])
        per_sm = min(max_threads_per_sm, blocks * threads // sms)
        flight = per_sm * 2 * 4  # two 4-byte loads per loop trip, issued before either is added
        measured = gbps(frame, "harris.reduce6", n)
        latency_ns = sms * flight / (measured * 1e9) * 1e9
        rows.append([name(ctx), str(sms), str(per_sm), f"{flight / 1024:.1f} KiB", f"{sms * flight / 2**20:.2f} MiB",
                     cell(measured), cell(float(ctx["copy_gbps"])), cell(latency_ns)])
    return [f"`harris.reduce6`: {blocks} blocks of {threads} threads (`06_multiple_elements_per_thread.cu`, "
            f"`multi_pass_driver.cuh`), two 4-byte loads in flight per thread; f32 sum of {rr.fmt_n(n)}.", ""] + table(
        ["GPU", "SMs", "threads per SM", "in flight per SM", "in flight, GPU", "measured GB/s", "copy GB/s",
         "latency that gives the measured rate, ns"], rows)


# Lesson 3: clocks, the host's share, repeats ---------------------------------------------------------

def clocks(fr: dict) -> list[str]:
    n = 1 << 20
    rows = []
    for frame, ctx in fr.values():
        for impl in ("modern.last_block", "cub.device_reduce"):
            r = row(frame, impl, n)
            rows.append([name(ctx), f"`{impl}`"] + [cell(1e3 * r[f"ms_{t}"], "{:.2f}") for t in rl.TIMINGS]
                        + [cell(1e3 * r[f"floor_ms_{t}"], "{:.2f}") for t in ("host_cold", "gpu_cold", "gpu_hot")])
    return [f"f32 sum of {rr.fmt_n(n)}, µs (`bench.json`):", ""] + table(
        ["GPU", "implementation"] + list(rl.TIMINGS) + ["floor host_cold", "floor gpu_cold", "floor gpu_hot"], rows)


def host_cost(fr: dict) -> list[str]:
    rows = []
    for g, (_, ctx) in fr.items():
        lctx, lc = rl.load_launch_cost(g)
        for impl in ("launch.empty", "modern.last_block", "cub.device_reduce", "cub.device_reduce_env"):
            r = lc[(lc["impl"] == impl) & (((lc["dtype"] == "f32") & (lc["n"] == 1 << 16)) | (lc["dtype"] == "none"))]
            if r.empty:
                continue
            r = r.iloc[0]
            rows.append([name(ctx), f"`{impl}`", cell(r["enqueue_us"], "{:.2f}"), cell(r["host_clock_us"], "{:.2f}"),
                         cell(r["gpu_clock_us"], "{:.2f}"), cell(r["host_clock_us"] - r["gpu_clock_us"], "{:.2f}")])
    return ["f32 sum of 2^16 (the empty launch: one warp, no work), µs per call, L2 not flushed (`launch_cost.json`):",
            ""] + table(["GPU", "implementation", "enqueue (host)", "host clock", "GPU clock", "host − GPU clock"], rows)


def repeats() -> list[str]:
    lines = []
    for g in rl.gpus_with("repeat_full.json"):
        outcomes, reps = rr.repeat_outcomes("repeat_full.json", g)
        always = outcomes[outcomes["lost"] == reps]
        label = rr.short(rl.load_bench(g)[1]["gpu_name"])
        lines += [f"{label}, `repeat_full.json`: the cases the fastest CUB variant won in all {reps} repetitions, "
                  "per timing", ""]
        rows = [[t, ", ".join(always[always["timing"] == t]["case"]) or "none"] for t in rl.TIMINGS]
        lines += table(["timing", "lost in every repetition"], rows) + [""]
    return lines[:-1] if lines else ["No repeat study in results/."]


# Lesson 5: the finishes and small n -------------------------------------------------------------------

FINISHES = ["modern.vec_two_pass", "modern.atomic", "modern.last_block", "modern.cooperative", "modern.cluster",
            "cub.device_reduce", "cub.reduce_atomic"]


def finishes(fr: dict) -> list[str]:
    lines = []
    for frame, ctx in fr.values():
        rows = []
        for impl in FINISHES:
            rows.append([f"`{impl}`", cell(us(frame, impl, 1 << 16), "{:.2f}"),
                         cell(us(frame, impl, 1 << 16, "host_cold"), "{:.2f}"), cell(gbps(frame, impl, 1 << 30))])
        lines += [f"**{ctx['gpu_name']}**, f32 sum", ""] + table(
            ["implementation", "2^16 µs (gpu_cold)", "2^16 µs (host_cold)", "2^30 GB/s (gpu_cold)"], rows)
        fastest = []
        for n, timing, what in ((1 << 16, "gpu_cold", "2^16, GPU clock"), (1 << 16, "host_cold", "2^16, host clock"),
                                (1 << 30, "gpu_cold", "2^30, GPU clock")):
            times = {impl: us(frame, impl, n, timing) for impl in FINISHES if impl.startswith("modern.")}
            best = min(times, key=times.get)
            fastest.append(f"{what}: `{best}`")
        lines += ["", "Fastest hand-written finish: " + "; ".join(fastest) + ".", ""]
    rows = []
    sizes = [1 << 16, 1 << 20, 1 << 24, 1 << 26, 1 << 30]
    for frame, ctx in fr.values():
        rows.append([name(ctx)] + [cell(us(frame, "modern.last_block", n) / us(frame, "modern.atomic", n), "×{:.2f}")
                                   for n in sizes])
    lines += ["What the arrival order buys: `modern.atomic`'s speed over `modern.last_block`'s, f32 sum (above 1: "
              "the atomic finish is faster)", ""] + table(["GPU"] + [rr.fmt_n(n) for n in sizes], rows)
    return lines


def small_n(fr: dict) -> list[str]:
    rows = []
    for g, (frame, ctx) in fr.items():
        floors, extra = rl.load_floor(g)
        empty = extra[extra["impl"] == "floor.empty_launch"]
        empty_us = 1e3 * float(empty.iloc[0][f"ms_{TIMING}"]) if not empty.empty else float("nan")
        f32 = rl.full_rows(frame)
        hand, cub = rl.envelope(f32, TIMING, True), rl.envelope(f32, TIMING, False)
        for n in (1 << 10, 1 << 12, 1 << 14, 1 << 16):
            h, c = hand[hand["n"] == n].iloc[0], cub[cub["n"] == n].iloc[0]
            floor_us = us(frame, h["impl"], n) / h["over_floor"]
            rows.append([name(ctx), rr.fmt_n(n), cell(empty_us, "{:.2f}"), cell(floor_us, "{:.2f}"),
                         f"`{h['impl']}` {1e3 * h['ms']:.2f}", f"`{c['impl']}` {1e3 * c['ms']:.2f}"])
    return ["f32 sum, µs: the empty launch (`floor.empty_launch`), the floor (a plain read of the same bytes), and "
            "the fastest of each side", ""] + table(
        ["GPU", "n", "empty launch", "floor", "fastest hand-written", "fastest CUB"], rows)


# Lesson 6: rows and segments --------------------------------------------------------------------------

def rows_of_8(fr: dict) -> list[str]:
    shape = "33554432x8"
    impls = ["leimao.batched_v1", "leimao.batched_v2", "segmented.adaptive", "argext.rows", "cub.segmented_fixed_size",
             "cub.segmented_reduce"]
    header, rows = ["implementation"], []
    for _, ctx in fr.values():
        header += [f"{name(ctx)} GB/s", f"{name(ctx)} % of floor"]
    for impl in impls:
        cells = [f"`{impl}`"]
        for frame, _ in fr.values():
            r = row(frame, impl, 0, kind="batched", shape=shape)
            cells += ["–", "–"] if r is None else [cell(r[f"GBps_{TIMING}"]), cell(r[f"pct_floor_{TIMING}"])]
        if cells[1:] != ["–"] * (len(cells) - 1):
            rows.append(cells)
    return [f"Batched f32 sum, {shape.replace('x', ' rows of ')} elements:", ""] + table(header, rows)


def segments(fr: dict) -> list[str]:
    rows = []
    for frame, ctx in fr.values():
        tuning = dict(re.findall(r"([\w.]+) (\S+?)(?:,|$)", ctx.get("tuning", "").split(":", 1)[-1]))
        for shape in ("65536x4096", next(iter(frame[frame["shape"].str.startswith("lognormal")]["shape"]), None)):
            mine = row(frame, "segmented.adaptive", 0, kind="segmented", shape=shape)
            cubs = frame[(frame["kind"] == "segmented") & (frame["dtype"] == "f32") & (frame["op"] == "sum")
                         & (frame["shape"] == shape) & (frame["family"] == "cub")]
            best = cubs.loc[cubs[f"ms_{TIMING}"].idxmin()]
            rows.append([name(ctx), shape, tuning.get("segmented.segment_threads", "–"),
                         cell(mine[f"GBps_{TIMING}"]), f"`{best['impl']}` {best[f'GBps_{TIMING}']:.0f}",
                         cell(best[f"ms_{TIMING}"] / mine[f"ms_{TIMING}"], "×{:.3f}")])
    return ["Segmented f32 sums (offsets), GB/s, and `segmented.adaptive`'s speed over the fastest CUB variant's:",
            ""] + table(["GPU", "segments", "segment_threads (tuning)", "segmented.adaptive", "fastest CUB", "ratio"], rows)


# Lesson 7: accuracy -----------------------------------------------------------------------------------

def accuracy() -> list[str]:
    gpu = rl.newest_gpu()
    _, df = rl.load_accuracy(gpu, "f32", "uniform01")
    methods = ["cpu.sequential", "cpu.pairwise", "harris.reduce2", "modern.last_block", "cub.device_reduce",
               "modern.atomic", "cub.reduce_atomic", "precision.exact_sum"]
    sizes = [1 << 16, 1 << 20, 1 << 24, 1 << 26]
    pivot = df.pivot_table(index="method", columns="n", values="rel_error")
    rows = [[f"`{m}`"] + [cell(pivot.loc[m, n], "{:.1e}") if m in pivot.index and n in pivot.columns else "–"
                          for n in sizes] for m in methods]
    return [f"Relative error of f32 sums of uniform [0, 1) values, {rl.gpu_label(gpu)} (`accuracy.json`):", ""] + table(
        ["method"] + [rr.fmt_n(n) for n in sizes], rows)


# Lesson 8: items per thread ---------------------------------------------------------------------------

def items_per_thread(fr: dict) -> list[str]:
    sizes = [1 << 16, 1 << 20, 1 << 26, 1 << 30]
    lines = []
    for frame, ctx in fr.values():
        impls = sorted(i for i in frame["impl"].unique() if i.startswith("cub.tuned_"))
        impls = sorted(impls, key=lambda i: tuple(int(x) for x in i.split("_")[1].split("x")))
        rows = [[f"`{impl}`"] + [cell(gbps(frame, impl, n)) for n in sizes]
                for impl in impls + ["cub.device_reduce", "cub.block_primitives"]]
        rows = [r for r in rows if r[1:] != ["–"] * len(sizes)]  # a variant without f32 sums
        lines += [f"**{ctx['gpu_name']}**, f32 sum, GB/s (`cub.tuned_<threads>x<items per thread>`)", ""]
        lines += table(["implementation"] + [rr.fmt_n(n) for n in sizes], rows) + [""]
    return lines[:-1]


# Lesson 9: a ticket per block -------------------------------------------------------------------------

def ticket(fr: dict) -> list[str]:
    threads = source_constant("handwritten/modern/modern_shape.cuh", r"constexpr int block_threads = (\d+);")
    unroll = source_constant("handwritten/modern/modern_shape.cuh", r"constexpr int unroll = (\d+);")
    tile = threads * unroll * 16
    rows = []
    for frame, ctx in fr.values():
        sms, copy = int(ctx["sm_count"]), float(ctx["copy_gbps"])
        tuning = dict(re.findall(r"([\w.]+) (\S+?)(?:,|$)", ctx.get("tuning", "").split(":", 1)[-1]))
        share = copy / sms
        rows.append([name(ctx), str(sms), cell(copy), cell(share, "{:.1f}"), cell(tile / (share * 1e9) * 1e9),
                     tuning.get("modern.waves", "–")])
    return [f"One tile of `modern.last_block`: {threads} threads × {unroll} loads × 16 B = {tile // 1024} KiB "
            "(`modern_shape.cuh`). The time one SM needs to stream it at its share of the measured copy "
            "bandwidth, and the waves each GPU's table chose:", ""] + table(
        ["GPU", "SMs", "copy GB/s", "per SM GB/s", "one tile per SM, ns", "modern.waves (tuning)"], rows)


# Lesson 10: what the pair costs -----------------------------------------------------------------------

def pair_cost(fr: dict) -> list[str]:
    sizes = [1 << 16, 1 << 20, 1 << 26, 1 << 30]
    rows = []
    for frame, ctx in fr.values():
        rows.append([name(ctx), "`argext.pair` / `argext.key64`"] + [
            cell(us(frame, "argext.pair", n, op="argmax") / us(frame, "argext.key64", n, op="argmax"), "×{:.2f}")
            for n in sizes])
        f32 = frame[(frame["kind"] == "full") & (frame["dtype"] == "f32") & (~frame["family"].isin(["cub", "thrust"]))]
        best = f32.groupby(["op", "n"])[f"ms_{TIMING}"].min()
        rows.append([name(ctx), "fastest argmax / fastest sum"] + [
            cell(best.get(("argmax", n), float("nan")) / best.get(("sum", n), float("nan")), "×{:.2f}") for n in sizes])
    return ["f32, full arrays, time over time (1.00: the same time; notebook 8, \"What the pair costs\"):", ""] + table(
        ["GPU", "ratio"] + [rr.fmt_n(n) for n in sizes], rows)


# Lesson 11: the push one-shot's hand-over ------------------------------------------------------------

def push(fr: dict) -> list[str]:
    lines = []
    for g in rl.gpus_with("multigpu.json"):
        data = json.loads((rl.RESULTS / g / "multigpu.json").read_text())
        ctx, r = data["context"], pd.DataFrame(data["results"])
        a = r[(r["kind"] == "all_reduce") & (r["dtype"] == "f32") & (r["clock"] == "gpu")]
        t = a.pivot_table(index="bytes", columns="variant", values="us")
        pull_bw = float(r[(r["kind"] == "p2p") & (r["variant"] == "sm_pull_all_directions") & (r["clock"] == "gpu")]
                        ["gbps"].iloc[0])
        small = int(t.index.min())
        push0, pull0 = float(t.loc[small, "one_shot_push"]), float(t.loc[small, "one_shot"])
        handover = (pull0 - push0) * 1e-6 * pull_bw * 1e9  # bytes: push sends 2m, pull m, at the same rate
        largest = int(t["one_shot_push"].dropna().index.max())
        lines += [f"{ctx['world_size']}×{rr.short(ctx['gpu_name'])}, f32, GPU clock (`multigpu.json`):", ""]
        lines += table(["push at " + rr.fmt_bytes(small) + ", µs", "pull one-shot at " + rr.fmt_bytes(small) + ", µs",
                        "SM pull, GB/s", "hand-over (t_pull − t_push) × B", "push / pull at " + rr.fmt_bytes(largest)],
                       [[f"{push0:.2f}", f"{pull0:.2f}", f"{pull_bw:.0f}", f"{handover / 2**20:.2f} MiB",
                         f"×{t.loc[largest, 'one_shot_push'] / t.loc[largest, 'one_shot']:.2f}"]]) + [""]
    return lines[:-1] if lines else ["No multigpu.json in results/."]


BLOCKS = {
    "ladder": ladder, "napkin": napkin, "clocks": clocks, "host-cost": host_cost, "repeats": lambda fr: repeats(),
    "finishes": finishes, "small-n": small_n, "rows-of-8": rows_of_8, "segments": segments,
    "accuracy": lambda fr: accuracy(), "items-per-thread": items_per_thread, "ticket": ticket, "pair-cost": pair_cost,
    "push": push,
}


def render(text: str) -> str:
    fr = frames()
    for block, make in BLOCKS.items():
        begin, end = f"<!-- answers-{block}:begin -->", f"<!-- answers-{block}:end -->"
        if begin not in text or end not in text:
            raise SystemExit(f"answers_figures: {ANSWERS.relative_to(ROOT)} lacks the block {begin} ... {end}")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        body = "\n".join(make(fr))
        text = f"{head}{begin}\n{body}\n{end}{tail}"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify the blocks instead of rewriting them")
    args = parser.parse_args()
    text = ANSWERS.read_text()
    wanted = render(text)
    if args.check:
        if wanted != text:
            print(f"{ANSWERS.relative_to(ROOT)}: a generated block differs from what results/ gives: run "
                  "scripts/answers_figures.py", file=sys.stderr)
            return 1
        print(f"{ANSWERS.relative_to(ROOT)}: the generated blocks match results/")
        return 0
    ANSWERS.write_text(wanted)
    print(f"{ANSWERS.relative_to(ROOT)}: {len(BLOCKS)} blocks regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
