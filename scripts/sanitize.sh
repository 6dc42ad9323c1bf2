#!/usr/bin/env bash
# compute-sanitizer over the correctness suite, on a GPU machine, after a build (cmake --workflow --preset test).
# memcheck, racecheck, synccheck and initcheck each run every registered implementation (float sum and
# int32 max, every kind) on the harness's shapes up to REDU_TEST_MAX_N elements; the run must be clean.
# Then the legacy exhibits are run under racecheck, where the `volatile` warp-synchronous reduce4
# must be flagged: that is the lesson it is kept for.
# Writes a summary to ${1:-results/<gpu-slug>}/sanitizer.json.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tests=./build/tests/reduce_tests
export REQUIRE_GPU=1 REDU_TEST_MAX_N="${REDU_TEST_MAX_N:-70000}"
code_id="$(scripts/code_id.sh)"
slug="$(python3 -c 'import subprocess,re;n=subprocess.check_output(["nvidia-smi","--query-gpu=name","--format=csv,noheader"]).decode().splitlines()[0];print(re.sub(r"[^a-z0-9]+","-",n.lower()).strip("-"))')"
out_dir="${1:-results/$slug}"
mkdir -p "$out_dir"
log_dir="$root/build/sanitizer"
mkdir -p "$log_dir"
filter='Registry/Correctness.MatchesReferenceOnEveryShape/*_f32_sum_*:Registry/Correctness.MatchesReferenceOnEveryShape/*_i32_max_*:BadInputOnGpu.*'
entries=()
status=0
for tool in memcheck racecheck synccheck initcheck; do
  log="$log_dir/$tool.log"
  start=$(date +%s)
  compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$tests" --gtest_filter="$filter" > "$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  # memcheck, synccheck and initcheck print "ERROR SUMMARY: N errors"; racecheck "RACECHECK SUMMARY: N hazards".
  errors=$(grep -m1 -oE '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  ran=$(grep -m1 -oE '\[==========\] [0-9]+ tests' "$log" | grep -oE '[0-9]+' || echo "?")
  passed=$(grep -m1 -oE '\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  echo "$tool: exit $rc, $ran tests, $passed passed, sanitizer errors $errors, ${secs}s"
  [ "$rc" = 0 ] || status=1
  entries+=("{\"tool\": \"$tool\", \"exit_code\": $rc, \"tests\": \"$ran\", \"passed\": \"$passed\", \"errors\": \"$errors\", \"seconds\": $secs}")
done

# The exhibit: racecheck must find the hazards in Harris's volatile last-warp unroll.
log="$log_dir/legacy-racecheck.log"
compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 5 "$tests" \
  --gtest_filter='LegacyExhibit.HarrisVolatileReduce4*' --gtest_also_run_disabled_tests > "$log" 2>&1
hazards=$(grep -m1 -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' || echo 0)
echo "legacy volatile reduce4 under racecheck: $hazards hazards (expected > 0)"
[ "${hazards:-0}" -gt 0 ] || status=1
entries+=("{\"tool\": \"racecheck (legacy volatile reduce4 exhibit, expected to be flagged)\", \"hazards\": ${hazards:-0}}")

{
  echo "{\"code_id\": \"$code_id\", \"gpu_slug\": \"$slug\", \"max_n\": $REDU_TEST_MAX_N, \"filter\": \"$filter\","
  echo " \"runs\": ["
  (IFS=,; echo "  ${entries[*]}")
  echo " ], \"clean\": $([ $status = 0 ] && echo true || echo false)}"
} > "$out_dir/sanitizer.json"
echo "sanitizer summary: $out_dir/sanitizer.json (clean: $([ $status = 0 ] && echo yes || echo no))"
exit $status
