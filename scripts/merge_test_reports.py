#!/usr/bin/env python3
"""Merge GoogleTest JSON reports from sharded runs into one report stamped with the code_id."""
import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code-id", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()

    suites = {}
    totals = {"tests": 0, "failures": 0, "disabled": 0, "errors": 0}
    gpu = None
    # What every shard records about the build and the code the GPU ran (tests/main.cpp), when present.
    build = {}
    for path in args.reports:
        with open(path) as f:
            report = json.load(f)
        gpu = gpu or report.get("gpu")
        for key in ("cccl", "cuda_architectures", "device_code", "unavailable"):
            if key in report:
                build.setdefault(key, report[key])
        for key in totals:
            totals[key] += int(report.get(key, 0))
        for suite in report.get("testsuites", []):
            merged = suites.setdefault(suite["name"], {"name": suite["name"], "testsuite": []})
            merged["testsuite"].extend(suite.get("testsuite", []))
    skipped = sum(1 for s in suites.values() for t in s["testsuite"] if t.get("result") == "SKIPPED")
    merged = {
        "code_id": args.code_id,
        "gpu": gpu,
        **build,
        "shards": len(args.reports),
        **totals,
        "skipped": skipped,
        "testsuites": sorted(suites.values(), key=lambda s: s["name"]),
    }
    with open(args.out, "w") as f:
        json.dump(merged, f, indent=1)
    print(f"{args.out}: {totals['tests']} tests, {totals['failures']} failures, {skipped} skipped, gpu {gpu}"
          + "".join(f", {key} {value or 'none'}" for key, value in build.items()))
    return 1 if totals["failures"] or totals["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
