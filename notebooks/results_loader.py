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


# ---------------------------------------------------------------------------------------------------
# Provenance, printed from the files themselves: which GPU, code, library, build and tuning table every
# figure of a notebook comes from, so that no notebook has to say it in prose (where it would go stale).

FIGURES = Path(__file__).resolve().parent / "figures"

# Context keys that may name the CUDA architectures a file's binary was built for (none is written yet;
# the provenance table shows them when a program starts writing one).
_ARCH_KEYS = ("cuda_architectures", "architectures", "cuda_arch")


def pow2(n) -> str:
    """2^k for a power of two, the plain number otherwise (e.g. 2^20, 32000)."""
    n = int(n)
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def _when(text) -> pd.Timestamp | None:
    try:
        stamp = pd.Timestamp(text)
    except (TypeError, ValueError):
        return None
    if pd.isna(stamp):
        return None
    return stamp.tz_convert("UTC") if stamp.tzinfo else stamp.tz_localize("UTC")


def _date_text(stamp) -> str:
    return "not recorded" if stamp is None or pd.isna(stamp) else stamp.strftime("%Y-%m-%d %H:%M UTC")


def file_provenance(gpu: str, name: str) -> dict:
    """Where one results file came from, read from the file: its GPU, program, date (when the program
    records one: reduce_bench does), code_id, CCCL, build and tuning table. Files without a context
    (tests.json, sanitizer.json) give what they hold at their top level."""
    data = load_json(name, gpu)
    context = data.get("context") or {k: v for k, v in data.items() if isinstance(v, (str, int, float))}
    tuning = str(context.get("tuning", ""))
    arch = next((str(context[k]) for k in _ARCH_KEYS if k in context), None)
    extra = []
    if "world_size" in context:
        extra.append(f"{context['world_size']} GPUs")
    if "nccl_version" in context:
        extra.append(f"NCCL {str(context['nccl_version']).split(' ')[0]}")
    return {
        "gpu": gpu,
        "file": name,
        "program": context.get("program", Path(name).stem),
        "date": _when(context.get("date")),
        "code_id": context.get("code_id", "not recorded"),
        "cccl": context.get("cccl_version", "–"),
        "build": context.get("build_type", "–") + (f", {arch}" if arch else ""),
        "architectures": arch,
        "tuning_file": tuning.split(":", 1)[0] if tuning else "–",
        "tuning": tuning,
        "gpu_name": context.get("gpu_name", context.get("gpu", gpu)),
        "notes": ", ".join(extra),
    }


def _folder_files(gpu: str) -> list[str]:
    return sorted(p.name for p in (RESULTS / gpu).glob("*.json"))


def gpu_freshness() -> pd.DataFrame:
    """One row per GPU folder: the newest date its files record, the code_ids they carry, and whether it
    is the folder with the newest results ("newest") or an older snapshot ("older"). Only reduce_bench
    files carry a date; a folder with none is "undated"."""
    rows = []
    for gpu in gpus():
        files = [file_provenance(gpu, name) for name in _folder_files(gpu)]
        dates = [f["date"] for f in files if f["date"] is not None]
        rows.append({"gpu": gpu, "gpu_name": next((f["gpu_name"] for f in files if f["program"] == "reduce_bench"), gpu),
                     "last_measured": max(dates) if dates else None,
                     "code_ids": sorted({str(f["code_id"]) for f in files}),
                     "bench_code_id": next((str(f["code_id"]) for f in files if f["file"] == "bench.json"), None)})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    newest = frame["last_measured"].dropna().max() if frame["last_measured"].notna().any() else None
    frame["status"] = ["undated" if d is None or pd.isna(d) else ("newest" if d == newest else "older")
                       for d in frame["last_measured"]]
    return frame


def newest_gpu() -> str:
    """The GPU folder whose results are the newest (its latest dated file is the latest of all);
    the first folder when none is dated."""
    fresh = gpu_freshness()
    if fresh.empty:
        _folder(None)  # raises the "no results" error
    newest = fresh[fresh["status"] == "newest"]
    return (newest if not newest.empty else fresh).iloc[0]["gpu"]


def gpu_label(gpu: str) -> str:
    """A GPU folder's name for figures and tables: its GPU name, marked "(older snapshot)" when
    gpu_freshness() finds its files older than the newest folder's."""
    fresh = gpu_freshness().set_index("gpu")
    if gpu not in fresh.index:
        return gpu
    row = fresh.loc[gpu]
    return row["gpu_name"] + (" (older snapshot)" if row["status"] == "older" else "")


def _gpu_status_line(row, newest_row) -> str:
    head = f"{row['gpu']} ({row['gpu_name']})"
    if row["status"] == "newest":
        return f"{head}: the newest results under results/, last measured {_date_text(row['last_measured'])}"
    if row["status"] == "undated":
        return f"{head}: its files record no date"
    age = newest_row["last_measured"] - row["last_measured"]
    hours = age.total_seconds() / 3600
    span = f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.0f} days"
    mine, theirs = row["bench_code_id"], newest_row["bench_code_id"]
    code = (f"its bench.json is the same code as {newest_row['gpu']}'s (code_id {mine})" if mine == theirs else
            f"its bench.json is code_id {mine}, {newest_row['gpu']}'s is {theirs}")
    return (f"{head}: OLDER SNAPSHOT, last measured {_date_text(row['last_measured'])}, {span} before "
            f"{newest_row['gpu']}'s newest file; {code}")


def provenance(files) -> pd.DataFrame:
    """The provenance of results files as a frame, one row per file. `files`: names such as "bench.json"
    (read for every GPU folder that holds it) or "gpu-slug/name" (that folder only)."""
    rows = []
    for entry in files:
        if "/" in entry:
            gpu, name = entry.split("/", 1)
            rows.append(file_provenance(gpu, name))
        else:
            rows += [file_provenance(gpu, entry) for gpu in gpus_with(entry)]
    return pd.DataFrame(rows)


def provenance_table(files, width: int = 110) -> pd.DataFrame:
    """Print where every results file a notebook reads comes from (GPU, date, code_id, CCCL, build,
    tuning table), label each GPU folder as the newest results or an older snapshot, and flag files that
    come from different code. Returns the frame (see provenance)."""
    import textwrap

    table = provenance(files)
    if table.empty:
        print("no results files found under results/ for:", ", ".join(files))
        return table
    fresh = gpu_freshness().set_index("gpu")
    newest = fresh[fresh["status"] == "newest"]
    newest_row = newest.reset_index().iloc[0] if not newest.empty else None
    print("GPU folders read:")
    for gpu in dict.fromkeys(table["gpu"]):
        print("  " + _gpu_status_line(fresh.loc[gpu].rename(gpu).to_frame().T.reset_index()
                                      .rename(columns={"index": "gpu"}).iloc[0], newest_row))
    shown = table.assign(path=table["gpu"] + "/" + table["file"], date=table["date"].map(_date_text))
    columns = {"path": "file", "program": "program", "date": "date", "code_id": "code_id", "cccl": "CCCL",
               "build": "build", "tuning_file": "tuning table", "notes": "notes"}
    shown = shown[list(columns)].rename(columns=columns)
    if not table["notes"].astype(bool).any():
        shown = shown.drop(columns="notes")
    print("\nFiles read (from each file's own context):")
    print(shown.to_string(index=False))
    codes = table["code_id"].astype(str).value_counts()
    if len(codes) == 1:
        print(f"\nOne code: every file above is code_id {codes.index[0]}.")
    else:
        print(f"\nFLAG: these files come from {len(codes)} different code_ids; figures that set them side by side "
              "compare different code as well as what the notebook names:")
        for code, count in codes.items():
            where = table[table["code_id"].astype(str) == code]
            print(f"  {code}: {count} file(s): " + ", ".join(where["gpu"] + "/" + where["file"]))
    if table["architectures"].isna().all():
        print("CUDA architectures: not recorded in these files.")
    print("\nTuning tables (the launch shapes the kernels read, as each file recorded them):")
    for tuning, readers in table[table["tuning"].astype(bool)].groupby("tuning", sort=False):
        print(textwrap.fill(tuning, width=width, initial_indent="  ", subsequent_indent="      "))
        print(textwrap.fill("read by: " + ", ".join(readers["gpu"] + "/" + readers["file"]), width=width,
                            initial_indent="      ", subsequent_indent="      "))
    return table


# ---------------------------------------------------------------------------------------------------
# Small helpers the notebooks share for legible figures and for conclusions printed from the data.

def full_rows(frame: pd.DataFrame, dtype: str = "f32", op: str = "sum") -> pd.DataFrame:
    """The full-array rows of one element type and operator."""
    return frame[(frame["kind"] == "full") & (frame["dtype"] == dtype) & (frame["op"] == op)]


def over_floor(rows: pd.DataFrame, timing: str = "gpu_cold") -> pd.Series:
    """Each row's time over the floor's time (a bare single-launch read of the same bytes): 1.0 is the
    floor, 1.25 is 25% slower than a plain read."""
    return rows[f"ms_{timing}"] / rows[f"floor_ms_{timing}"]


def best_variants(rows: pd.DataFrame, family: str | tuple = "cub", k: int = 3, timing: str = "gpu_cold") -> list[str]:
    """The k implementations of a family (or families) that stay closest to the family's fastest call:
    ranked by the median, over the sizes in `rows`, of their time over the fastest time of the family at
    that size (1.0 where they are the fastest). The few worth drawing when a family has many variants."""
    families = (family,) if isinstance(family, str) else tuple(family)
    ms = f"ms_{timing}"
    mine = rows[rows["family"].isin(families)].dropna(subset=[ms])
    keys = [c for c in ("kind", "dtype", "op", "shape", "n") if c in mine.columns]
    fastest = mine.groupby(keys)[ms].transform("min")
    score = (mine[ms] / fastest).groupby(mine["impl"]).median().sort_values(kind="stable")
    return list(score.index[:k])


def envelope(rows: pd.DataFrame, timing: str = "gpu_cold", hand_written: bool = True) -> pd.DataFrame:
    """Per n: the fastest hand-written (or CUB) row, with `impl`, `ms` and `over_floor`."""
    ms = f"ms_{timing}"
    side = rows[~rows["family"].isin(HAND_WRITTEN_EXCLUDED)] if hand_written else rows[rows["family"] == "cub"]
    side = side.dropna(subset=[ms])
    best = side.loc[side.groupby("n")[ms].idxmin()]
    return pd.DataFrame({"n": best["n"].values, "impl": best["impl"].values, "ms": best[ms].values,
                         "over_floor": over_floor(best, timing).values}).sort_values("n").reset_index(drop=True)


def span(values, fmt: str = "{:.2f}", prefix: str = "×") -> str:
    """A range as text for printed conclusions: ×1.08–1.14, or ×1.08 when both ends agree."""
    low, high = min(values), max(values)
    a, b = fmt.format(low), fmt.format(high)
    return f"{prefix}{a}" if a == b else f"{prefix}{a}–{b}"


def sizes_text(ns) -> str:
    """Sizes as runs of consecutive powers of two: 2^15–2^21, 2^26, 2^28–2^30."""
    logs = sorted(int(n).bit_length() - 1 for n in ns)
    runs, start = [], None
    for i, k in enumerate(logs):
        start = k if start is None else start
        if i + 1 == len(logs) or logs[i + 1] != k + 1:
            runs.append(f"2^{start}" if start == k else f"2^{start}–2^{k}")
            start = None
    return ", ".join(runs) if runs else "none"


def headline_figure(gpu: str | None = None, out: Path | None = None, dtype: str = "f32", timing: str = "gpu_cold"):
    """The study's headline: on the newest GPU, the fastest hand-written sum and the fastest CUB variant
    at each n, as time over the floor (1.0 = a bare read of the same bytes), n on a log2 axis.
    Saved to `out` if given; returns the figure."""
    import matplotlib.pyplot as plt

    gpu = gpu or newest_gpu()
    frame, ctx = load_bench(gpu)
    rows = full_rows(frame, dtype)
    hand, cub = envelope(rows, timing, True), envelope(rows, timing, False)
    clock, l2 = timing.split("_")
    clock = {"gpu": "GPU", "host": "host"}.get(clock, clock)
    fig, ax = plt.subplots(figsize=(9, 4.8))
    ax.axhline(1.0, color="black", lw=2, label="floor: a bare single-launch read of the same bytes")
    ax.plot(cub.n, cub.over_floor, color="tab:blue", ls="--", marker="s", ms=5, lw=2,
            label="fastest CUB variant at each n")
    ax.plot(hand.n, hand.over_floor, color="tab:red", marker="o", ms=5, lw=2,
            label="fastest hand-written kernel at each n")
    theirs = cub.set_index("n").over_floor.reindex(hand.n).values
    ax.fill_between(hand.n, hand.over_floor, theirs, where=hand.over_floor.values <= theirs, interpolate=True,
                    color="tab:red", alpha=0.12, lw=0, label="hand-written faster")
    ax.fill_between(hand.n, hand.over_floor, theirs, where=hand.over_floor.values >= theirs, interpolate=True,
                    color="tab:blue", alpha=0.12, lw=0, label="CUB faster")
    ax.set_xscale("log", base=2)
    ns = sorted(set(hand.n) | set(cub.n))
    ax.set_xticks(ns[::2], [f"$2^{{{int(n).bit_length() - 1}}}$" for n in ns[::2]])
    ax.minorticks_off()
    ax.set_ylim(0.9, max(hand.over_floor.max(), cub.over_floor.max()) * 1.08)
    ax.set_xlabel(f"n ({dtype} elements)")
    ax.set_ylabel("time / floor's time (lower is faster)")
    ax.set_title(f"{dtype} sum on {ctx['gpu_name']}: distance to the floor ({clock} clock, {l2} L2)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=9)
    fig.text(0.01, 0.01, f"results/{gpu}/bench.json: {_date_text(_when(ctx.get('date')))}, CCCL {ctx['cccl_version']}, "
             f"code_id {ctx['code_id']}", fontsize=7, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    if out is not None:  # the README's headline.png is scripts/readme_results.py's (both GPUs)
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=120)
    return fig
