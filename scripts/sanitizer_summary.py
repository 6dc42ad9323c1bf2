#!/usr/bin/env python3
"""Merge the sharded compute-sanitizer runs of scripts/sanitize.sh into sanitizer.json.

Per tool: tests run, passed, failed and skipped (from the shards' gtest JSON reports), the cases run per
category (test suite; for Registry/Correctness also per element type, operator and kind) and the
findings, the sum over shards of the sanitizer's summary count (errors for memcheck, synccheck and
initcheck, hazards for racecheck). A shard without a report or a summary line (it crashed) is a
failure. Exit status 0 only if every tool is clean and the legacy exhibit is flagged.
"""
import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# memcheck, synccheck and initcheck print "ERROR SUMMARY: N errors", racecheck "RACECHECK SUMMARY: N hazards ...".
SUMMARY = re.compile(r"(?:ERROR|RACECHECK) SUMMARY: (\d+)")


def merge_tool(logs: Path, tool: str) -> dict:
    run = json.loads((logs / f"{tool}.run.json").read_text())
    results = Counter()
    by = {"suite": Counter(), "dtype": Counter(), "op": Counter(), "kind": Counter()}
    findings, broken_shards, failed_tests = 0, [], []
    for shard in range(run["shards"]):
        summary = SUMMARY.search((logs / f"{tool}-{shard}.log").read_text(errors="replace"))
        try:
            report = json.loads((logs / f"{tool}-{shard}.json").read_text())
        except (OSError, ValueError):
            report = None
        if summary is None or report is None:
            broken_shards.append(shard)
            continue
        findings += int(summary.group(1))
        for suite in report["testsuites"]:
            for test in suite["testsuite"]:
                if test.get("result") == "SKIPPED" and not test.get("failures"):
                    results["skipped"] += 1
                    continue
                if test.get("failures"):
                    results["failed"] += 1
                    failed_tests.append(f'{suite["name"]}.{test["name"]}')
                else:
                    results["passed"] += 1
                by["suite"][suite["name"]] += 1
                # Cases print as "<impl> <dtype> <op> <kind>" (PrintTo in tests/support/cases.hpp); the
                # implementation x kind suites as "<impl> <kind>" and count by suite only.
                words = test.get("value_param", "").split()
                if len(words) == 4:
                    _, dtype, op, kind = words
                    by["dtype"][dtype] += 1
                    by["op"][op] += 1
                    by["kind"][kind] += 1
    clean = findings == 0 and not results["failed"] and not broken_shards and not any(run["exit_codes"])
    return {
        **run,
        "tests": sum(results.values()),
        "passed": results["passed"],
        "failed": results["failed"],
        "skipped": results["skipped"],
        "findings": findings,
        "broken_shards": broken_shards,
        "failed_tests": failed_tests[:20],
        "cases_run": {
            "by_suite": dict(sorted(by["suite"].items())),
            "cases_by_dtype": dict(sorted(by["dtype"].items())),
            "cases_by_op": dict(sorted(by["op"].items())),
            "cases_by_kind": dict(sorted(by["kind"].items())),
        },
        "clean": clean,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code-id", required=True)
    parser.add_argument("--gpu-slug", required=True)
    parser.add_argument("--filter", required=True)
    parser.add_argument("--logs", required=True, type=Path)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    runs = [merge_tool(args.logs, tool) for tool in TOOLS]
    for r in runs:
        print(f'{r["tool"]}: {r["tests"]} tests ({r["passed"]} passed, {r["failed"]} failed, {r["skipped"]} skipped) '
              f'over {r["shards"]} shards, {r["findings"]} findings, exit codes {sorted(set(r["exit_codes"]))}, '
              f'{r["seconds"]}s, sizes capped at {r["max_n"]}{"" if r["clean"] else "  NOT CLEAN"}')
        for name in r["failed_tests"]:
            print(f"  failed: {name}")
        if r["broken_shards"]:
            print(f'  shards without a report or a summary (crashed?): {r["broken_shards"]}')

    legacy = SUMMARY.search((args.logs / "legacy-racecheck.log").read_text(errors="replace"))
    hazards = int(legacy.group(1)) if legacy else 0
    print(f"legacy volatile reduce4 under racecheck: {hazards} hazards (expected > 0)")

    clean = all(r["clean"] for r in runs) and hazards > 0
    summary = {
        "code_id": args.code_id,
        "gpu_slug": args.gpu_slug,
        "filter": args.filter,
        "findings_are": "errors (memcheck, synccheck, initcheck) or hazards (racecheck), summed over shards",
        "runs": runs,
        "legacy_exhibit": {
            "tool": "racecheck",
            "filter": "LegacyExhibit.HarrisVolatileReduce4*",
            "hazards": hazards,
            "expected": "flagged (hazards > 0): the volatile warp-synchronous unroll is a race since Volta",
        },
        "clean": clean,
    }
    with open(args.out, "w") as f:
        json.dump(summary, f, indent=1)
    print(f"sanitizer summary: {args.out} (clean: {'yes' if clean else 'no'})")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
