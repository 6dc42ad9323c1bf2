#!/usr/bin/env python3
"""Generate results/README.md from the results files: each file's provenance (from its context), the claims
the study makes with whether they hold (scripts/claims.py), and every table of the checked-in results.

  scripts/results_report.py            rewrite results/README.md
  scripts/results_report.py --check    fail if results/README.md is not what the results give (CI)

The provenance helpers here (gpu_provenance, provenance_line) also write the README's provenance lines
(scripts/readme_results.py), so both pages say the same of every file.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))
sys.path.insert(0, str(ROOT / "scripts"))
import pandas as pd  # noqa: E402
import claims  # noqa: E402
import results_loader as rl  # noqa: E402

OUT = ROOT / "results" / "README.md"
BEGIN, END = "<!-- results-report:begin -->", "<!-- results-report:end -->"
EVEN = [1 << k for k in range(10, 31, 2)]
LARGE_EVEN = [1 << k for k in range(16, 31, 2)]
PER_IMPL = [1 << 16, 1 << 20, 1 << 26, 1 << 30]

# What each file is, in the order the page lists them.
FILES = {
    "bench.json": "the benchmark sweep (`reduce_bench`, CCCL of the build)",
    "bench_cccl_toolkit.json": "the `cub.*` and `thrust.*` rows built against the CUDA Toolkit's own CCCL",
    "tests.json": "every GoogleTest case, `REQUIRE_GPU=1`",
    "tests_cccl_toolkit.json": "the same cases built against the CUDA Toolkit's own CCCL, `REQUIRE_GPU=1`",
    "sanitizer.json": "compute-sanitizer over the test suite (`scripts/sanitize.sh`)",
    "accuracy.json": "`accuracy_study`: float error and run-to-run variation",
    "pi.json": "`pi_study`: π by the midpoint rule",
    "launch_cost.json": "`launch_cost_study`: the host's time per call",
    "multigpu.json": "`multigpu_bench`: all-reduce and the sharded sum",
    "repeat_full.json": "a repeat study: near-ties timed 5 times, interleaved (full arrays)",
    "repeat_rows.json": "a repeat study: near-ties timed 5 times, interleaved (rows and segments)",
}


def log2(n) -> int:
    return int(n).bit_length() - 1


def fmt_n(n) -> str:
    return f"2^{log2(n)}"


def short(gpu_name: str) -> str:
    """"NVIDIA H100 80GB HBM3" -> "H100"."""
    words = gpu_name.replace("NVIDIA ", "").split()
    return words[0] if words else gpu_name


# Provenance --------------------------------------------------------------------------------------------

@dataclass
class FileProvenance:
    name: str
    code_id: str
    date: str = ""          # YYYY-MM-DD, where the file records one
    program: str = ""
    cccl: str = ""
    build: str = ""
    library_build: str = ""  # Google Benchmark's build type (benchmark files)
    tuning: str = ""
    note: str = ""           # what it holds: tests passed, findings, rows


@dataclass
class GpuProvenance:
    slug: str
    name: str
    files: list[FileProvenance] = field(default_factory=list)

    @property
    def bench(self) -> FileProvenance:
        return next(f for f in self.files if f.name == "bench.json")

    @property
    def other_code(self) -> list[FileProvenance]:
        """Files of other code than the GPU's bench.json."""
        return [f for f in self.files if f.code_id != self.bench.code_id]


def _file(path: Path) -> FileProvenance:
    data = json.loads(path.read_text())
    ctx = data.get("context", {})
    prov = FileProvenance(path.name, str(ctx.get("code_id", data.get("code_id", "unknown"))),
                          str(ctx.get("date", ""))[:10], str(ctx.get("program", "")),
                          str(ctx.get("cccl_version", data.get("cccl", ""))),
                          str(ctx.get("build_type", data.get("cuda_architectures", "") and
                                      "CUDA architectures " + str(data.get("cuda_architectures")))),
                          str(ctx.get("library_build_type", "")), str(ctx.get("tuning", "")))
    if path.name.startswith("tests"):
        stamps = [t["timestamp"] for s in data.get("testsuites", []) for t in s.get("testsuite", []) if "timestamp" in t]
        prov.date = min(stamps)[:10] if stamps else ""
        prov.note = (f"{data['tests']} tests, {data['failures']} failures, {data['errors']} errors, "
                     f"{data['skipped']} skipped")
    elif path.name == "sanitizer.json":
        runs = data.get("runs", [])
        prov.note = (", ".join(f"{r['tool']} {r['tests']} tests {r['findings']} findings" for r in runs)
                     + f"; the legacy exhibit flagged with {data['legacy_exhibit']['hazards']} hazards")
    elif "benchmarks" in data:
        rows = [b for b in data["benchmarks"] if not b.get("error_occurred")]
        prov.note = f"{len(rows)} rows"
    elif "results" in data:
        prov.note = f"{len(data['results'])} rows"
    return prov


def gpu_provenance(slug: str) -> GpuProvenance:
    folder = rl.RESULTS / slug
    order = {name: i for i, name in enumerate(FILES)}
    paths = sorted(folder.glob("*.json"), key=lambda p: (order.get(p.name, len(order)), p.name))
    files = [_file(p) for p in paths]
    name = json.loads((folder / "bench.json").read_text())["context"]["gpu_name"]
    return GpuProvenance(slug, name, files)


def newest(provs: list[GpuProvenance]) -> GpuProvenance:
    """The GPU whose bench.json is the most recent: its code is the newest measured."""
    return max(provs, key=lambda p: p.bench.date)


def table_name(tuning: str) -> str:
    return tuning.split(":", 1)[0] if tuning else "none"


def provenance_line(prov: GpuProvenance, latest: GpuProvenance) -> str:
    """One line per GPU: where its files come from, and which of them are of other code."""
    b = prov.bench
    line = (f"**{prov.name}** (`results/{prov.slug}/`, {len(prov.files)} files): measured {b.date}, code_id "
            f"`{b.code_id}`, CCCL {b.cccl}, {b.build} build, Google Benchmark {b.library_build} build, tuning "
            f"table `{table_name(b.tuning)}`")
    odd = prov.other_code
    if odd:
        line += "; except " + ", ".join(
            f"`{f.name}` (code_id `{f.code_id}`{', ' + f.date if f.date else ''}, CCCL {f.cccl or '–'})" for f in odd)
    if b.code_id != latest.bench.code_id and prov.slug != latest.slug:
        line += (f". **A snapshot of older code**: the newest measured code, `{latest.bench.code_id}`, ran on the "
                 f"{latest.name} on {latest.bench.date}")
    return line + "."


def provenance_section(provs: list[GpuProvenance]) -> list[str]:
    latest = newest(provs)
    lines = ["## Provenance", "",
             "Every file carries the context of the program that wrote it (`report/provenance.hpp`); the "
             "`code_id` names the code it ran (`scripts/code_id.sh` prints the checkout's, to compare).", ""]
    for prov in provs:
        lines += ["- " + provenance_line(prov, latest)]
    lines.append("")
    for prov in provs:
        lines += [f"**{prov.name}**, file by file (tuning values: {prov.bench.tuning or 'none'})", "",
                  "| file | what it holds | code_id | date | CCCL | build | contents |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for f in prov.files:
            lines.append(f"| `{f.name}` | {FILES.get(f.name, f.program or '–')} | `{f.code_id}` | {f.date or '–'} | "
                         f"{f.cccl or '–'} | {f.build or '–'} | {f.note or '–'} |")
        lines.append("")
    return lines


# Claims ------------------------------------------------------------------------------------------------

def claims_section(gpus: list[str], names: dict[str, str]) -> list[str]:
    lines = ["## The claims, as measured", "",
             "Each claim as the study states it, checked on each GPU's `bench.json` (and `accuracy.json`) by "
             "`scripts/claims.py`: whether it holds (yes; no: every case misses; partly), its worst case, and "
             "how many of its cases miss. Ratios above 1: the hand-written kernel is faster. Losses stay listed.",
             ""]
    for gpu in gpus:
        lines += [f"### {names[gpu]}", ""] + claims.markdown(gpu)
    return lines


# Single-GPU tables -------------------------------------------------------------------------------------

def float_sums(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[(frame["kind"] == "full") & (frame["dtype"] == "f32") & (frame["op"] == "sum")]


def yardstick(frames: dict, names: dict, sizes=EVEN) -> list[str]:
    """The fastest hand-written f32 sum over the fastest CUB variant, per GPU, clock and L2 state."""
    lines = ["| GPU | timing | " + " | ".join(fmt_n(n) for n in sizes) + " |",
             "| --- | --- |" + " --- |" * len(sizes)]
    for gpu, (frame, _) in frames.items():
        for timing in rl.timings(frame):
            v = float_sums(rl.versus_best_cub(frame, timing)).set_index("n")["ratio"]
            cells = [f"{v[n]:.2f}" if n in v.index else "–" for n in sizes]
            lines.append(f"| {short(names[gpu])} | {timing} | " + " | ".join(cells) + " |")
    return lines


def over_floor(gpu: str, frame: pd.DataFrame, timing: str = "gpu_cold") -> pd.DataFrame:
    """Per n: the floor's time (µs) and the best hand-written and best CUB f32 sums' times over it."""
    v = float_sums(rl.versus_best_cub(frame, timing)).set_index("n")
    reads, _ = rl.load_floor(gpu)
    floor = reads[reads["dtype"] == "f32"].set_index("n")[f"ms_{timing}"]
    both = v.join(floor.rename("floor_ms"), how="inner")
    return pd.DataFrame({"floor_us": both["floor_ms"] * 1e3, "hand": both["hand_ms"] / both["floor_ms"],
                         "cub": both["cub_ms"] / both["floor_ms"]}).sort_index()


def floor_tables(frames: dict, names: dict) -> list[str]:
    lines = []
    for gpu, (frame, _) in frames.items():
        t = over_floor(gpu, frame)
        sizes = [n for n in EVEN if n in t.index]
        lines += [f"**{names[gpu]}**", "", "| | " + " | ".join(fmt_n(n) for n in sizes) + " |",
                  "| --- |" + " --- |" * len(sizes),
                  "| floor, µs | " + " | ".join(f"{t.loc[n, 'floor_us']:.2f}" for n in sizes) + " |",
                  "| best hand-written | " + " | ".join(f"{t.loc[n, 'hand']:.2f}" for n in sizes) + " |",
                  "| best CUB | " + " | ".join(f"{t.loc[n, 'cub']:.2f}" for n in sizes) + " |", ""]
    return lines


ORDER = ("basics.", "harris.", "leimao.", "moderngpu.", "modern.", "segmented.", "precision.", "cub.", "thrust.")


def lesson_key(impl: str) -> tuple[int, str]:
    return (next((i for i, p in enumerate(ORDER) if impl.startswith(p)), len(ORDER)), impl)


def every_implementation(frames: dict, names: dict, sizes=PER_IMPL) -> list[str]:
    gpus = list(frames)
    lines = ["| implementation | " + " | ".join(f"{short(names[g])} {fmt_n(n)}" for g in gpus for n in sizes) + " |",
             "| --- |" + " --- |" * (len(gpus) * len(sizes))]
    best_cub = {g: float_sums(rl.versus_best_cub(f, "gpu_cold")).set_index("n")["cub_ms"] for g, (f, _) in frames.items()}
    impls = sorted({i for f, _ in frames.values() for i in float_sums(f)["impl"].unique()}, key=lesson_key)
    for impl in impls:
        cells = []
        for gpu, (frame, _) in frames.items():
            rows = float_sums(frame)
            rows = rows[rows["impl"] == impl].set_index("n")
            for n in sizes:
                if n not in rows.index or "ms_gpu_cold" not in rows or pd.isna(rows.loc[n, "ms_gpu_cold"]):
                    cells.append("–")
                else:
                    r = rows.loc[n]
                    cells.append(f"{r['GBps_gpu_cold']:.0f} ×{best_cub[gpu][n] / r['ms_gpu_cold']:.2f}")
        if any(c != "–" for c in cells):
            lines.append(f"| `{impl}` | " + " | ".join(cells) + " |")
    return lines


def rows_and_segments(frames: dict, names: dict, dtype: str = "f32") -> list[str]:
    gpus = list(frames)
    lines = ["| kind | shape | " + " | ".join(short(names[g]) for g in gpus) + " |", "| --- | --- |" + " --- |" * len(gpus)]
    per_gpu = {}
    for gpu, (frame, _) in frames.items():
        v = rl.versus_best_cub(frame, "gpu_cold")
        per_gpu[gpu] = v[(v["kind"] != "full") & (v["dtype"] == dtype) & (v["op"] == "sum")]
    first = per_gpu[gpus[0]]
    for _, row in first.sort_values(["kind", "segments", "shape"]).iterrows():
        cells = []
        for gpu in gpus:
            m = per_gpu[gpu][(per_gpu[gpu]["kind"] == row["kind"]) & (per_gpu[gpu]["shape"] == row["shape"])]
            cells.append("–" if m.empty else f"{m.iloc[0]['ratio']:.2f} (`{m.iloc[0]['best_cub']}`)")
        lines.append(f"| {row['kind']} | {row['shape']} | " + " | ".join(cells) + " |")
    return lines


def operators_table(frame: pd.DataFrame, cases: list[tuple[str, str]], sizes=LARGE_EVEN) -> list[str]:
    """Best hand-written over best CUB (GPU clock, cold L2), one row per (dtype, op), full arrays."""
    v = rl.versus_best_cub(frame, "gpu_cold")
    v = v[v["kind"] == "full"]
    lines = ["| type, operator | " + " | ".join(fmt_n(n) for n in sizes) + " |", "| --- |" + " --- |" * len(sizes)]
    for dtype, op in cases:
        r = v[(v["dtype"] == dtype) & (v["op"] == op)].set_index("n")["ratio"]
        if r.empty:
            continue
        lines.append(f"| {dtype} {op} | " + " | ".join(f"{r[n]:.2f}" if n in r.index else "–" for n in sizes) + " |")
    return lines


def precision_table(gpu: str, sizes=LARGE_EVEN) -> list[str]:
    res = claims.load(gpu)
    comp = claims.against_plain(res, ("precision.compensated_sum", "precision.compensated_atomic"), sizes[0])
    exact = claims.against_plain(res, ("precision.exact_sum",), sizes[0])
    reference = claims.full_f32_rows(res, "cub.reduce_gpu_to_gpu").set_index("n")["ms_gpu_cold"]
    mine = claims.full_f32_rows(res, "precision.exact_sum").set_index("n")["ms_gpu_cold"]

    def by_n(cases: pd.DataFrame) -> dict:
        return {f"2^{c.split('2^')[1].split()[0]}": v for c, v in zip(cases["case"], cases["value"])}

    rows = {"compensated (faster of the two) / best plain sum": by_n(comp),
            "exact / best plain sum": by_n(exact),
            "exact / `cub.reduce_gpu_to_gpu`": {fmt_n(n): reference[n] / mine[n] for n in mine.index if n in reference.index}}
    lines = ["| speed of | " + " | ".join(fmt_n(n) for n in sizes) + " |", "| --- |" + " --- |" * len(sizes)]
    for label, values in rows.items():
        lines.append(f"| {label} | " + " | ".join(f"{values[fmt_n(n)]:.2f}" if fmt_n(n) in values else "–"
                                                 for n in sizes) + " |")
    return lines


def toolkit_table(gpus: list[str], names: dict, sizes=(1 << 16, 1 << 30)) -> list[str]:
    """The library rows built against the toolkit's CCCL against the same rows of bench.json."""
    have = [g for g in gpus if (rl.RESULTS / g / "bench_cccl_toolkit.json").exists()]
    if not have:
        return []
    lines = ["| implementation | " + " | ".join(f"{short(names[g])} {fmt_n(n)}" for g in have for n in sizes) + " |",
             "| --- |" + " --- |" * (len(have) * len(sizes))]
    old, new = {}, {}
    for g in have:
        o, octx = rl.load_bench(g, "bench_cccl_toolkit.json")
        n_, nctx = rl.load_bench(g)
        old[g], new[g] = float_sums(o).set_index(["impl", "n"]), float_sums(n_).set_index(["impl", "n"])
        versions = (octx["cccl_version"], nctx["cccl_version"])
    impls = sorted({i for g in have for i, _ in old[g].index})
    for impl in impls:
        cells = []
        for g in have:
            for n in sizes:
                key = (impl, n)
                if key in old[g].index and key in new[g].index and not pd.isna(old[g].loc[key, "ms_gpu_cold"]):
                    cells.append(f"{old[g].loc[key, 'ms_gpu_cold'] / new[g].loc[key, 'ms_gpu_cold']:.2f}")
                else:
                    cells.append("–")
        if any(c != "–" for c in cells):
            lines.append(f"| `{impl}` | " + " | ".join(cells) + " |")
    return [f"CCCL {versions[0]}'s time over CCCL {versions[1]}'s (above 1: the newer library is faster), f32 sum, "
            "GPU clock, cold L2; only the entry points both libraries have.", ""] + lines


def accuracy_table(gpus: list[str], names: dict, n: int = 1 << 24) -> list[str]:
    have = [g for g in gpus if (rl.RESULTS / g / "accuracy.json").exists()]
    if not have:
        return []
    data_sets = ("uniform01", "uniform-11", "cancelling")
    frames = {g: pd.DataFrame(rl.load_study("accuracy.json", g)["results"]) for g in have}
    lines = ["| method | " + " | ".join(f"{short(names[g])} {d}" for g in have for d in data_sets)
             + " | " + " | ".join(f"{short(names[g])} distinct" for g in have) + " |",
             "| --- |" + " --- |" * (len(have) * (len(data_sets) + 1))]
    methods = list(dict.fromkeys(m for f in frames.values() for m in f["method"]))
    for method in methods:
        cells, distinct = [], []
        for g in have:
            f = frames[g]
            f = f[(f["method"] == method) & (f["dtype"] == "f32") & (f["n"] == n)]
            for d in data_sets:
                r = f[f["data"] == d]
                cells.append(f"{r.iloc[0]['rel_error']:.1e}" if not r.empty else "–")
            distinct.append(str(int(f["distinct_results"].max())) if not f.empty else "–")
        if any(c != "–" for c in cells):
            lines.append(f"| `{method}` | " + " | ".join(cells + distinct) + " |")
    return [f"f32 sums of {fmt_n(n)} values: relative error against the exact sum per data set, and the most "
            "distinct results over the repeats of any data set (1: the same bits every time).", ""] + lines


def launch_cost_table(gpus: list[str], names: dict) -> list[str]:
    have = [g for g in gpus if (rl.RESULTS / g / "launch_cost.json").exists()]
    if not have:
        return []
    frames = {g: rl.load_launch_cost(g)[1] for g in have}
    lines = ["| implementation | " + " | ".join(f"{short(names[g])} {c}" for g in have for c in ("enqueue", "host clock", "GPU clock"))
             + " |", "| --- |" + " --- |" * (3 * len(have))]
    impls = list(dict.fromkeys(i for f in frames.values() for i in f["impl"]))
    for impl in impls:
        cells = []
        for g in have:
            f = frames[g]
            r = f[(f["impl"] == impl) & ((f["dtype"] == "f32") & (f["n"] == 1 << 16) | (f["dtype"] == "none"))]
            cells += ([f"{r.iloc[0][c]:.2f}" for c in ("enqueue_us", "host_clock_us", "gpu_clock_us")] if not r.empty
                      else ["–"] * 3)
        lines.append(f"| `{impl}` | " + " | ".join(cells) + " |")
    return ["µs per call, f32 sum of 2^16 (the empty launch: one warp, no work): the host's enqueue time (steady "
            "clock around calls behind a held stream), and both event clocks, L2 not flushed.", ""] + lines


def repeat_outcomes(name: str, gpu: str) -> tuple[pd.DataFrame, int]:
    """Per case and timing of a repeat study: in how many repetitions the best CUB variant beat the best
    hand-written kernel (lost), and the range of the ratio; and the number of repetitions."""
    frame, _ = rl.load_repeats(name, gpu)
    out = [rl.versus_best_cub(part, timing).assign(timing=timing, repetition=rep)
           for timing in rl.TIMINGS if f"ms_{timing}" in frame
           for rep, part in frame.groupby("repetition")]
    v = pd.concat(out, ignore_index=True)
    v["case"] = [(f"{r['dtype']} 2^{log2(r['n'])}" if r["kind"] == "full" else f"{r['kind']} {r['shape']}")
                 for _, r in v.iterrows()]
    outcomes = v.assign(lost=v["ratio"] < 1).groupby(["case", "timing"], sort=False).agg(
        kind=("kind", "first"), lost=("lost", "sum"), worst=("ratio", "min"), best=("ratio", "max")).reset_index()
    return outcomes, int(frame["repetition"].nunique())


def repeat_table(gpus: list[str], names: dict) -> list[str]:
    """The cases of each repeat study that CUB won at least once, and in how many repetitions."""
    lines = []
    for name in ("repeat_full.json", "repeat_rows.json"):
        for g in rl.gpus_with(name):
            outcomes, reps = repeat_outcomes(name, g)
            lost = outcomes[outcomes["lost"] > 0]
            lines += [f"**{short(names[g])}, `{name}`** ({reps} repetitions of {outcomes['case'].nunique()} cases "
                      f"on {outcomes['timing'].nunique()} timings): the cases CUB's fastest variant won at least "
                      "once, and in how many repetitions", "",
                      "| case | timing | lost in | ratio range |", "| --- | --- | --- | --- |"]
            lines += [f"| {r['case']} | {r['timing']} | {int(r['lost'])} of {reps} | ×{r['worst']:.3f}–{r['best']:.3f} |"
                      for _, r in lost.iterrows()]
            lines.append("")
    return lines


# Multi-GPU ---------------------------------------------------------------------------------------------

MG_SIZES = [8, 1024, 65536, 262144, 1 << 20, 1 << 24, 1 << 28]


def fmt_bytes(b: int) -> str:
    for unit, size in (("MB", 1 << 20), ("KB", 1 << 10)):
        if b >= size:
            return f"{b // size} {unit}"
    return f"{b} B"


def multigpu_tables(gpus: list[str], names: dict) -> list[str]:
    lines = []
    for g in gpus:
        path = rl.RESULTS / g / "multigpu.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        ctx, r = data["context"], pd.DataFrame(data["results"])
        a = r[(r["kind"] == "all_reduce") & (r["dtype"] == "f32") & (r["clock"] == "gpu")]
        us = a.pivot_table(index="bytes", columns="variant", values="us")
        variants = [v for v in ("one_shot_push", "one_shot", "two_shot", "nccl") if v in us.columns]
        lines += [f"**{ctx['world_size']}×{short(names[g])}** (NCCL {ctx.get('nccl_version', '–')}, multicast "
                  f"{ctx.get('multicast', '–').split(':')[0]}): f32 all-reduce, µs per call on the GPU clock (the "
                  "slowest rank's median; L2 not flushed), and NCCL's time over each variant's (above 1: faster "
                  "than NCCL)", "",
                  "| message | " + " | ".join(f"`{v}`" for v in variants) + " | " +
                  " | ".join(f"`{v}` vs NCCL" for v in variants if v != "nccl") + " |",
                  "| --- |" + " --- |" * (2 * len(variants) - 1)]
        for b in MG_SIZES:
            if b not in us.index:
                continue
            row = us.loc[b]
            cells = [f"{row[v]:.2f}" if not pd.isna(row[v]) else "–" for v in variants]
            cells += [f"{row['nccl'] / row[v]:.2f}" if not pd.isna(row[v]) else "–" for v in variants if v != "nccl"]
            lines.append(f"| {fmt_bytes(b)} | " + " | ".join(cells) + " |")
        ar = r[r["kind"] == "all_reduce"]
        big = ar[ar["bytes"] == ar["bytes"].max()]
        bus = big.pivot_table(index=["dtype", "clock"], columns="variant", values="busbw_gbps")
        p2p = r[r["kind"] == "p2p"].pivot_table(index="variant", columns="clock", values="gbps")
        lines += ["", f"Bus bandwidth at {fmt_bytes(int(big['bytes'].max()))}, GB/s, "
                  "and the peer copy it is measured against:", "",
                  "| type, clock | " + " | ".join(f"`{v}`" for v in bus.columns) + " |", "| --- |" + " --- |" * len(bus.columns)]
        for (dtype, clock), row in bus.iterrows():
            lines.append(f"| {dtype}, {clock} | " + " | ".join(f"{row[v]:.0f}" for v in bus.columns) + " |")
        lines += ["", "| peer copy | " + " | ".join(p2p.columns) + " |", "| --- |" + " --- |" * len(p2p.columns)]
        for variant, row in p2p.iterrows():
            lines.append(f"| `{variant}` | " + " | ".join(f"{row[c]:.0f}" for c in p2p.columns) + " |")
        s = r[r["kind"] == "sharded_sum"].pivot_table(index="variant", columns="clock", values="us")
        lines += ["", f"The full f32 sum of {int(r[r['kind'] == 'sharded_sum']['elements'].max()):,} floats, µs "
                  f"(single-GPU kernel `{ctx.get('sharded_impl', '–')}`):", "",
                  "| variant | " + " | ".join(f"{c} clock" for c in s.columns) + " |", "| --- |" + " --- |" * len(s.columns)]
        for variant, row in s.iterrows():
            lines.append(f"| `{variant}` | " + " | ".join(f"{row[c]:.1f}" for c in s.columns) + " |")
        lines.append("")
    return lines


# The page ----------------------------------------------------------------------------------------------

def page() -> str:
    gpus = rl.gpus()
    frames = {g: rl.load_bench(g) for g in gpus}
    names = {g: ctx["gpu_name"] for g, (_, ctx) in frames.items()}
    provs = [gpu_provenance(g) for g in gpus]
    lines = ["# Results", "",
             "This page is generated by `scripts/results_report.py` from the files in `results/<gpu-slug>/`; CI "
             "checks that it matches them. Do not edit it by hand: run the script. The files are written only by "
             "the project's programs on a GPU (`docs/reproducing.md`); the notebooks teach from them. How each "
             "figure is timed: `docs/benchmarking.md`.", ""]
    lines += provenance_section(provs)
    lines += claims_section(gpus, names)
    lines += ["## Full-array float sums", "",
              "**The yardstick**: the fastest hand-written kernel's speed over the fastest CUB variant's (above 1: "
              "hand-written faster), f32 sum, per GPU, clock and L2 state.", ""]
    lines += yardstick(frames, names) + [""]
    lines += ["**Time over the floor** (the fastest plain read of the same bytes), f32 sum, GPU clock, cold L2: "
              "1.00 is as fast as reading the input can be.", ""]
    lines += floor_tables(frames, names)
    lines += ["**Every implementation**, f32 sum, GPU clock, cold L2: GB/s and the speed over the fastest CUB "
              "variant's on the same GPU (Thrust waits on the host, so it has no GPU-clock time).", ""]
    lines += every_implementation(frames, names) + [""]
    lines += ["## Rows and segments", "",
              "f32 sum at a constant total of 2^28 elements: the fastest hand-written kernel's speed over the "
              "fastest CUB variant's (GPU clock, cold L2), and that CUB variant. Batched rows are equal and "
              "contiguous; segmented rows come as offsets.", ""]
    lines += rows_and_segments(frames, names) + [""]
    lines += ["## Other operators and element types", "",
              "The fastest hand-written kernel's speed over the fastest CUB variant's, full arrays, GPU clock, "
              "cold L2.", ""]
    for g, (frame, _) in frames.items():
        lines += [f"**{names[g]}**", ""]
        lines += operators_table(frame, [("f32", "argmax"), ("f32", "argmin"), ("i32", "argmax"), ("i32", "argmin"),
                                         ("f32", "min"), ("f32", "max"), ("i32", "min"), ("i32", "max"),
                                         ("bf16", "sum"), ("f16", "sum"), ("f64", "sum"), ("i32", "sum"),
                                         ("f32", "sum_squares")]) + [""]
    lines += ["## Precision", "",
              "What a digit costs: speed over the reference named, f32 sum, GPU clock, cold L2 (below 1: slower "
              "than the reference).", ""]
    for g in gpus:
        lines += [f"**{names[g]}**", ""] + precision_table(g) + [""]
    lines += accuracy_table(gpus, names) + [""]
    toolkit = toolkit_table(gpus, names)
    if toolkit:
        lines += ["## CUB across CCCL releases", ""] + toolkit + [""]
    launch = launch_cost_table(gpus, names)
    if launch:
        lines += ["## What a call costs the host", ""] + launch + [""]
    repeats = repeat_table(gpus, names)
    if repeats:
        lines += ["## Is a 1% gap real? The repeat studies", "",
                  "Near-ties timed several times in random interleaved order (`--benchmark_repetitions` with "
                  "`--benchmark_enable_random_interleaving`): a gap lost in every repetition is the machine's, not "
                  "noise; one whose sign moves between repetitions is inside its spread.", ""] + repeats
    multi = multigpu_tables(gpus, names)
    if multi:
        lines += ["## Beyond one GPU", ""] + multi
    text = "\n".join(lines).rstrip() + "\n"
    return f"{BEGIN}\n{text}{END}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify results/README.md instead of rewriting it")
    args = parser.parse_args()
    wanted = page()
    if args.check:
        if not OUT.exists() or OUT.read_text() != wanted:
            print("results/README.md differs from what results/ gives: run scripts/results_report.py", file=sys.stderr)
            return 1
        print("results/README.md matches results/")
        return 0
    OUT.write_text(wanted)
    print("results/README.md regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
