#!/usr/bin/env python3
"""The yardstick table: per GPU, the fastest hand-written kernel against the fastest CUB variant, for
every size and shape the sweep measured, on both clocks, with L2 cold and hot.

Each cell is CUB's time over the hand-written time (above 1.00: the hand-written kernel is faster),
then the names of the two winners when --names is given. Everything comes from results/<gpu>/bench.json.

  scripts/versus_cub.py                      every GPU under results/, f32/i32/f64 sum, markdown
  scripts/versus_cub.py --gpu nvidia-h200 --dtypes f32 --ops sum,max --names
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "notebooks"))
import results_loader as rl  # noqa: E402


def shape_name(row) -> str:
    if row["kind"] == "full":
        return f"2^{int(row['n']).bit_length() - 1}"
    return row["shape"]


def tables(gpu: str, dtypes: list[str], ops: list[str], names: bool) -> str:
    frame, ctx = rl.load_bench(gpu)
    out = [f"### {ctx['gpu_name']} (CCCL {ctx['cccl_version']}, code_id {ctx['code_id']})", ""]
    per_timing = {t: rl.versus_best_cub(frame, t) for t in rl.timings(frame)}
    first = next(iter(per_timing.values()))
    for (kind, dtype, op), group in first.groupby(["kind", "dtype", "op"], sort=False):
        if dtype not in dtypes or op not in ops:
            continue
        out += [f"**{kind} {dtype} {op}**: CUB time / hand-written time", "",
                "| size | " + " | ".join(per_timing) + " |", "| --- |" + " --- |" * len(per_timing)]
        for _, row in group.iterrows():
            cells = []
            for timing, table in per_timing.items():
                match = table[(table["kind"] == kind) & (table["dtype"] == dtype) & (table["op"] == op)
                              & (table["shape"] == row["shape"])]
                if match.empty:
                    cells.append("–")
                    continue
                m = match.iloc[0]
                cell = f"{m['ratio']:.2f}"
                if names:
                    cell += f" {m['best_hand_written']} vs {m['best_cub']}"
                cells.append(cell)
            out.append(f"| {shape_name(row)} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", action="append", help="results/<gpu> folder (default: every one)")
    parser.add_argument("--dtypes", default="f32,i32,f64")
    parser.add_argument("--ops", default="sum")
    parser.add_argument("--names", action="store_true", help="name the winning implementations in each cell")
    args = parser.parse_args()
    for gpu in args.gpu or rl.gpus():
        print(tables(gpu, args.dtypes.split(","), args.ops.split(","), args.names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
