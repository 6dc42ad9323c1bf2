#!/usr/bin/env python3
"""The "which GPUs" table of docs/gpus.md, generated: per architecture of the portable list, what each
preset compiles for it, which implementations run there (from their declared requirements, as
`reduce_bench --list_requirements` prints them) and which results exist (results/<gpu-slug>/).

  scripts/gpu_table.py --bench build/bench/reduce_bench            rewrite the block in docs/gpus.md
  scripts/gpu_table.py --bench build/bench/reduce_bench --check    exit 1 if the block is not what it would write

The block sits between <!-- gpus:begin --> and <!-- gpus:end -->.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "gpus.md"
BEGIN, END = "<!-- gpus:begin -->", "<!-- gpus:end -->"

# Examples of each architecture, for the reader (the driver's compute capability is the key).
GPUS = {
    75: "Turing: T4, RTX 20xx, Quadro RTX",
    80: "Ampere: A100, A30",
    86: "Ampere: A10, A40, RTX 30xx, RTX A6000",
    89: "Ada: L4, L40S, RTX 40xx",
    90: "Hopper: H100, H200, GH200",
    100: "Blackwell: B200, GB200",
    120: "Blackwell: RTX 50xx, RTX PRO 6000",
}
# Fallbacks in the shared device helpers rather than in one implementation's declaration: every kernel that
# reduces a warp of i32 through common/device/warp_reduce.cuh takes shuffles below this architecture.
LIBRARY_WIDE = {"warp_redux": 80}
FEATURE_WORDS = {
    "l2_cache_hints": "L2 eviction hints",
    "programmatic_dependent_launch": "programmatic dependent launch",
    "warp_redux": "redux.sync",
    "thread_block_clusters": "clusters",
    "cooperative_launch": "cooperative launch",
}


def cmake_list(name):
    """A CUDA architecture list from cmake/CudaArchitectures.cmake or CMakePresets.json."""
    text = (ROOT / "cmake" / "CudaArchitectures.cmake").read_text()
    match = re.search(r'set\(%s "([^"]*)"' % name, text)
    return match.group(1).split(";")


def preset_list(preset):
    presets = json.loads((ROOT / "CMakePresets.json").read_text())["configurePresets"]
    for p in presets:
        if p["name"] == preset:
            return p.get("cacheVariables", {}).get("CMAKE_CUDA_ARCHITECTURES", "").split(";")
    raise SystemExit(f"gpu_table: no configure preset {preset}")


def images(arch_list):
    """(SASS architectures, PTX architectures) of a CMAKE_CUDA_ARCHITECTURES list."""
    sass, ptx = set(), set()
    for entry in arch_list:
        number, _, kind = entry.partition("-")
        if kind in ("", "real"):
            sass.add(int(number))
        if kind in ("", "virtual"):
            ptx.add(int(number))
    return sass, ptx


def runs_as(arch, arch_list):
    """What a binary built for `arch_list` runs on a GPU of `arch`, and the architecture its code was
    compiled for: SASS of the same major version and no newer minor, else the newest PTX not newer than
    the GPU, JIT-compiled by the driver."""
    sass, ptx = images(arch_list)
    same_major = [s for s in sass if s // 10 == arch // 10 and s <= arch]
    if same_major:
        best = max(same_major)
        return (f"sm_{best} SASS" if best == arch else f"sm_{best} SASS (runs on {arch // 10}.x)"), best
    older_ptx = [p for p in ptx if p <= arch]
    if older_ptx:
        return f"compute_{max(older_ptx)} PTX, JIT", max(older_ptx)
    return "nothing", None


def requirements(bench):
    out = subprocess.run([bench, "--list_requirements"], check=True, capture_output=True, text=True).stdout
    lines = [line.split("\t") for line in out.strip().splitlines()]
    header, rows = lines[0], lines[1:]
    return header, rows


def results_by_arch():
    """{arch: [text]}: the GPUs measured per architecture, and the PTX-only test runs by the architecture
    their code was compiled for."""
    found = {}
    for folder in sorted((ROOT / "results").iterdir()):
        if not folder.is_dir():
            continue
        files = sorted(p.name for p in folder.glob("*.json"))
        cc = None
        for name in ("bench.json", "tests.json"):
            path = folder / name
            if path.exists() and name == "bench.json":
                cc = json.loads(path.read_text()).get("context", {}).get("compute_capability")
                break
        main = [f for f in files if not re.match(r"(tests|bench)_compute_\d+\.json$", f)]
        if cc:
            arch = int(cc.replace(".", ""))
            found.setdefault(arch, []).append(f"`results/{folder.name}/` ({len(main)} files)")
        for f in files:
            m = re.match(r"(tests|bench)_compute_(\d+)\.json$", f)
            if m:
                found.setdefault(int(m.group(2)), []).append(f"`{folder.name}/{f}` (its PTX on that GPU)")
    return found


def table(bench):
    header, rows = requirements(bench)
    portable = cmake_list("REDU_PORTABLE_CUDA_ARCHITECTURES")
    default = cmake_list("REDU_DEFAULT_CUDA_ARCHITECTURES")
    ci = preset_list("ci")
    measured = results_by_arch()
    total = len(rows)
    lines = [
        "| arch | GPUs | `portable` preset runs | `ci` preset and no-GPU default run | implementations that run "
        f"(of {total}) | falls back | results |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for arch in sorted(GPUS):
        column = header.index(f"sm_{arch}")
        blocked = [r[0] for r in rows if r[column] == "no"]
        fallbacks = set()
        for r in rows:
            m = re.search(r"fallback for ([a-z0-9_,]+)", r[column])
            if m:
                fallbacks.update(m.group(1).split(","))
        fallbacks.update(f for f, first in LIBRARY_WIDE.items() if arch < first)
        default_text = runs_as(arch, ci)[0]
        if ci != default:
            default_text += f"; default: {runs_as(arch, default)[0]}"
        runs = f"{total - len(blocked)}" + (f"; not {', '.join(blocked)}" if blocked else ": all")
        lines.append(
            f"| sm_{arch} | {GPUS[arch]} | {runs_as(arch, portable)[0]} | {default_text} | {runs} | "
            f"{', '.join(FEATURE_WORDS.get(f, f) for f in sorted(fallbacks)) or '-'} | "
            f"{'; '.join(measured.get(arch, [])) or 'none yet'} |"
        )
    source = "`reduce_bench --list_requirements`, cmake/CudaArchitectures.cmake, CMakePresets.json and results/"
    return "\n".join([BEGIN, f"Generated by `scripts/gpu_table.py` from {source}.", ""] + lines + [END])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True, help="a built reduce_bench")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"gpu_table: {DOC} has no {BEGIN} ... {END} block")
    new = text[: text.index(BEGIN)] + table(args.bench) + text[text.index(END) + len(END):]
    if args.check:
        if new != text:
            print("gpu_table: docs/gpus.md's table is not what scripts/gpu_table.py generates; run it", file=sys.stderr)
            return 1
        print("gpu_table: docs/gpus.md's table is up to date")
        return 0
    DOC.write_text(new)
    print(f"gpu_table: wrote the table of {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
