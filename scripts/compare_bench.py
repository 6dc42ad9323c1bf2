#!/usr/bin/env python3
"""Compare two bench.json files of reduce_bench, row by row (same benchmark name).

Prints every row whose median time moved by more than --threshold (default 3%, about the run-to-run
spread of the small sizes on one H100), and a summary per implementation: the median ratio new/old and
how many rows got faster or slower beyond the threshold. Ratios are of one timing's time (below 1:
faster): --timing=gpu_cold by default (ms_gpu_cold), since the host clock's share moves by 2-15% between
machines of one kind even for unchanged code (docs/benchmarking.md); rows without that
timing (Thrust has no GPU clock) are left out.

usage: scripts/compare_bench.py OLD.json NEW.json [--timing=gpu_cold] [--threshold=0.03] [--impl=name,...]
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict


def rows(path, key):
    data = json.load(open(path))
    return data["context"], {b["name"]: b for b in data["benchmarks"] if b.get(key)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=0.03)
    parser.add_argument("--impl", default="", help="comma-separated implementation names (default: all)")
    parser.add_argument("--timing", default="gpu_cold", choices=["host_cold", "gpu_cold", "host_hot", "gpu_hot"],
                        help="which time to compare (the ms_<timing> counter)")
    args = parser.parse_args()
    key = f"ms_{args.timing}"
    old_ctx, old = rows(args.old, key)
    new_ctx, new = rows(args.new, key)
    wanted = set(filter(None, args.impl.split(",")))
    print(f"old: {old_ctx.get('gpu_name')} code_id {old_ctx.get('code_id')}; "
          f"new: {new_ctx.get('gpu_name')} code_id {new_ctx.get('code_id')}")
    by_impl = defaultdict(list)
    moved = []
    for name in sorted(set(old) & set(new)):
        impl = name.split("/")[1]
        if wanted and impl not in wanted:
            continue
        ratio = new[name][key] / old[name][key]
        by_impl[impl].append(ratio)
        if abs(ratio - 1) > args.threshold:
            moved.append((ratio, name, old[name][key], new[name][key]))
    print(f"{len(moved)} of {sum(len(v) for v in by_impl.values())} rows moved by more than "
          f"{100 * args.threshold:.0f}% (new/old {key}):")
    for ratio, name, a, b in sorted(moved):
        print(f"  {ratio:6.3f}  {name.split('/iterations')[0]}  {1000 * a:.2f} -> {1000 * b:.2f} us")
    print("per implementation: median new/old, rows faster / slower beyond the threshold")
    for impl, ratios in sorted(by_impl.items()):
        faster = sum(r < 1 - args.threshold for r in ratios)
        slower = sum(r > 1 + args.threshold for r in ratios)
        print(f"  {impl:34s} {statistics.median(ratios):6.3f}  {faster:3d} / {slower:3d}  of {len(ratios)}")
    missing = sorted(set(old) ^ set(new))
    if missing:
        print(f"{len(missing)} rows in only one file (first: {missing[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
