#!/usr/bin/env bash
# compute-sanitizer over the whole correctness suite, on a GPU machine, after a build (cmake --workflow --preset test).
# memcheck, racecheck, synccheck and initcheck each run every test except LargeInputs.* (2^31 elements),
# LegacyExhibit.* (the documents' bugs, kept on purpose) and GpuClock.RefusesACallThatWaitsOnTheHost (a
# deliberate two-second stall of a held stream, no memory access to check): every implementation x kind x type x
# operator of Registry/Correctness.*, SpecialValues.*, Concurrency.*, BadInputOnGpu.* and the host-only
# tests, with problem sizes capped at REDU_TEST_MAX_N (default 70000; racecheck, the slowest tool, at
# REDU_RACECHECK_MAX_N, by default the same). The run must be clean: no finding, no failed test.
# Each tool's run is split over REDU_SANITIZE_SHARDS processes at once (default: one per CPU core, at
# most 16) with GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX; scripts/sanitizer_summary.py merges the shards.
# Then the legacy exhibits are run under racecheck, where the `volatile` warp-synchronous reduce4
# must be flagged: that is the lesson it is kept for.
# Logs and per-shard gtest reports go to build/sanitizer/; the summary to ${1:-results/<gpu-slug>}/sanitizer.json.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tests=./build/tests/reduce_tests
export REQUIRE_GPU=1
max_n="${REDU_TEST_MAX_N:-70000}"
racecheck_max_n="${REDU_RACECHECK_MAX_N:-$max_n}"
cores="$(nproc)"
shards="${REDU_SANITIZE_SHARDS:-$((cores < 16 ? cores : 16))}"
code_id="$(scripts/code_id.sh)"
slug="$(python3 -c 'import subprocess,re;n=subprocess.check_output(["nvidia-smi","--query-gpu=name","--format=csv,noheader"]).decode().splitlines()[0];print(re.sub(r"[^a-z0-9]+","-",n.lower()).strip("-"))')"
out_dir="${1:-results/$slug}"
mkdir -p "$out_dir"
log_dir="$root/build/sanitizer"
rm -rf "$log_dir" && mkdir -p "$log_dir"
filter='*-LargeInputs.*:LegacyExhibit.*:GpuClock.RefusesACallThatWaitsOnTheHost'

for tool in memcheck racecheck synccheck initcheck; do
  cap="$max_n"
  [ "$tool" = racecheck ] && cap="$racecheck_max_n"
  echo "$tool: $shards shards, sizes capped at $cap ($(date +%T))"
  start=$(date +%s)
  pids=()
  for i in $(seq 0 $((shards - 1))); do
    REDU_TEST_MAX_N="$cap" GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$i" \
      timeout "${REDU_SANITIZE_TIMEOUT:-900}" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$tests" --gtest_filter="$filter" \
      --gtest_output="json:$log_dir/$tool-$i.json" > "$log_dir/$tool-$i.log" 2>&1 &
    pids+=($!)
  done
  codes=()
  for pid in "${pids[@]}"; do
    wait "$pid"
    codes+=($?)
  done
  # What the summary needs beside the shards' logs and reports.
  echo "{\"tool\": \"$tool\", \"max_n\": $cap, \"shards\": $shards, \"seconds\": $(($(date +%s) - start)), \"exit_codes\": [$(IFS=,; echo "${codes[*]}")]}" \
    > "$log_dir/$tool.run.json"
done

# The exhibit: racecheck must find the hazards in Harris's volatile last-warp unroll.
compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 5 "$tests" \
  --gtest_filter='LegacyExhibit.HarrisVolatileReduce4*' --gtest_also_run_disabled_tests > "$log_dir/legacy-racecheck.log" 2>&1

python3 scripts/sanitizer_summary.py --code-id "$code_id" --gpu-slug "$slug" --filter "$filter" \
  --logs "$log_dir" --out "$out_dir/sanitizer.json"
