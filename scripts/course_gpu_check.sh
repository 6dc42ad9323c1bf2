#!/usr/bin/env bash
# On a GPU machine: do the course's exercises work as a student meets them (exercises/, docs/course.md)?
#   build     the student preset with the solutions in place (REDU_EXERCISE_SOLUTIONS=ON): reduce_tests,
#             reduce_bench and the exercises' host checks, which must pass.
#   solved    the whole harness on the solutions, which must pass: every case named after an exercise,
#             and the tests that loop over the registry inside one case (LargeInputs, BadInputOnGpu,
#             Validation, Registry, Requirements), in 4 processes at once on the GPU.
#   bench     the solutions timed beside the project's solutions and CUB, cold L2, GPU clock: full arrays
#             (f32 sums and argmax, 2^12 to 2^28) and the quick sweep's batched rows (2^22 elements, so
#             that a warp per row of one long row stays short); each summary table ends its log.
#   given     the same build with the student's files as given (only the exercises' objects change, and
#             the host checks built them already): the harness on the exercises must fail, every
#             exercise with its own message ("the kernel body is not written yet"), and never crash;
#             the benchmark must report the message beside the project's kernel's time.
# Each step writes its logs (bench also course_bench_full.json and course_bench_rows.json) to
# $OUT/course-check/ (the device tool), else to logs/ in its build folder, and prints a verdict line;
# the exit status is 1 if any step failed. The build folder is kept, so a time-limited machine can run the steps in separate calls:
#   scripts/course_gpu_check.sh                  every step
#   scripts/course_gpu_check.sh build solved     only these (each step rebuilds what it needs)
#   REDU_CCCL_ROOT=<folder>, REDU_BENCHMARK_SOURCE=<folder> as in scripts/gpu_run.sh (no network).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 1
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build solved bench given)
dir="build-course-check"
out="${OUT:+$OUT/course-check}"
out="${out:-$root/$dir/logs}"
mkdir -p "$out"
cores="$(nproc)"
status=0
step() { echo "== $1 ($(date +%T))"; }
verdict() { # name, 0|1, what
  echo "course check $1: $([ "$2" = 0 ] && echo pass || echo FAIL): $3"
  [ "$2" = 0 ] || status=1
}

exercises=(exercise.reduce2 exercise.reduce4 exercise.vec_two_pass exercise.last_block exercise.warp_per_row
           exercise.argmax)
configure_args=(-DREDU_MULTIGPU=OFF -DREDU_TEST_SHARDS=4)
if [ -n "${REDU_BENCHMARK_SOURCE:-}" ]; then
  configure_args+=(-DFETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK="$REDU_BENCHMARK_SOURCE")
else
  configure_args+=(-DREDU_DOWNLOAD_BENCHMARK=OFF) # the system's library serves a run that times little
fi
[ -n "${REDU_CCCL_ROOT:-}" ] && configure_args+=(-DREDU_CCCL_ROOT="$REDU_CCCL_ROOT")

# Configures the student preset with the solutions (ON) or the files as given (OFF) and builds the targets.
build_with() {
  local solutions="$1" log="$2"
  shift 2
  { cmake --preset student -B "$dir" -DREDU_EXERCISE_SOLUTIONS="$solutions" "${configure_args[@]}" &&
      cmake --build "$dir" -j "$cores" --target "$@"; } >> "$log" 2>&1
}

# reduce_tests on `filter` in 4 processes at once; the logs are <name>_<shard>.log. Returns the number of
# shards that exited otherwise than 0, and sets `crashed` to those that died of a signal or another code.
crashed=0
run_shards() {
  local name="$1" filter="$2" failed=0 pids=() rc
  crashed=0
  for shard in 0 1 2 3; do
    REQUIRE_GPU=1 GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$shard "./$dir/tests/reduce_tests" --gtest_filter="$filter" \
      > "$out/${name}_$shard.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid"
    rc=$?
    [ $rc = 0 ] || failed=$((failed + 1))
    [ $rc = 0 ] || [ $rc = 1 ] || crashed=$((crashed + 1))
  done
  return $failed
}

for s in "${steps[@]}"; do
  case "$s" in
    build)
      step "build: the student preset with the solutions, $cores cores"
      start=$SECONDS
      rm -f "$out/build.log"
      rc=0
      build_with ON "$out/build.log" reduce_tests reduce_bench exercise_tests exercise_tests_as_given || rc=1
      grep -E '^-- (CUDA architectures|CCCL|Exercises)' "$out/build.log"
      ctest --test-dir "$dir" -R '^exercise_tests' --output-on-failure >> "$out/build.log" 2>&1 || rc=1
      grep -E 'tests passed|tests failed' "$out/build.log" | tail -n 1
      verdict build $rc "built in $((SECONDS - start)) s; host checks of the solutions and of the files as given"
      ;;
    solved)
      step "solved: the harness on the solutions (must pass)"
      rc=0
      build_with ON "$out/solved_build.log" reduce_tests || rc=1
      start=$SECONDS
      filter='*exercise*:LargeInputs.*:BadInputOnGpu.*:Validation.*:Registry.*:RegistryAndCccl.*:Requirements.*'
      run_shards solved "$filter" || rc=1
      cases="$(cat "$out"/solved_*.log | grep -c '^\[       OK \].*exercise')"
      failures="$(cat "$out"/solved_*.log | grep -c '^\[  FAILED  \].*(')"
      grep -h '^\[  FAILED  \].*(' "$out"/solved_*.log | head -n 20
      [ "$cases" -gt 0 ] || rc=1
      verdict solved $rc "$cases exercise cases passed, $failures tests failed, in $((SECONDS - start)) s"
      ;;
    bench)
      step "bench: the solutions beside the project's solutions and CUB"
      rc=0
      build_with ON "$out/bench_build.log" reduce_bench || rc=1
      full="exercise.reduce2,harris.reduce2,exercise.reduce4,harris.reduce4,exercise.vec_two_pass,modern.vec_two_pass"
      full+=",basics.two_pass_grid_stride,exercise.last_block,modern.last_block,cub.device_reduce,exercise.argmax"
      full+=",argext.pair"
      rows="exercise.warp_per_row,leimao.batched_v2,segmented.adaptive,cub.segmented_reduce"
      start=$SECONDS
      "./$dir/bench/reduce_bench" --impl="$full" --types=f32 --ops=sum,argmax --min_log2=12 --max_log2=28 \
        --l2=cold --clocks=gpu --benchmark_out="$out/course_bench_full.json" --benchmark_out_format=json \
        > "$out/bench_full.log" 2>&1 || rc=1
      "./$dir/bench/reduce_bench" --impl="$rows" --types=f32 --ops=sum --sweep=quick --l2=cold --clocks=gpu \
        --benchmark_out="$out/course_bench_rows.json" --benchmark_out_format=json > "$out/bench_rows.log" 2>&1 || rc=1
      # The summary reduce_bench prints last: the GPU's line, then a table per kind, type and operator.
      for log in "$out/bench_full.log" "$out/bench_rows.log"; do
        sed -n '/: peak [0-9]* GB\/s, measured copy/,$p' "$log" | head -n 40
      done
      for e in "${exercises[@]}"; do
        grep -q "/$e/" "$out/bench_full.log" "$out/bench_rows.log" || { echo "no timing of $e"; rc=1; }
      done
      verdict bench $rc "every exercise timed in $((SECONDS - start)) s ($out/course_bench_*.json)"
      ;;
    given)
      step "given: the files as given (each must fail with its message, never crash)"
      rc=0
      rm -f "$out/given_build.log"
      build_with OFF "$out/given_build.log" reduce_tests reduce_bench exercise_tests || rc=1
      ctest --test-dir "$dir" -R '^exercise_tests$' --output-on-failure >> "$out/given_build.log" 2>&1 || rc=1
      start=$SECONDS
      run_shards given '*exercise*'
      failed_shards=$?
      [ "$failed_shards" -gt 0 ] || { echo "no exercise case failed, though no kernel is written"; rc=1; }
      [ "$crashed" = 0 ] || { echo "$crashed test processes crashed (see given_*.log)"; rc=1; }
      for e in "${exercises[@]}"; do
        grep -qF "$e: the kernel body is not written yet (exercises/" "$out"/given_*.log \
          || { echo "$e: its message is missing from the harness's output"; rc=1; }
      done
      "./$dir/bench/reduce_bench" --impl=exercise.reduce2,harris.reduce2 --types=f32 --ops=sum --min_log2=20 \
        --max_log2=20 --l2=cold --clocks=gpu > "$out/given_bench.log" 2>&1
      brc=$?
      [ $brc -lt 128 ] || { echo "reduce_bench crashed (exit $brc)"; rc=1; }
      grep -qF "exercise.reduce2: the kernel body is not written yet" "$out/given_bench.log" \
        || { echo "reduce_bench does not report exercise.reduce2's message"; rc=1; }
      grep -hoE "exercise\.[a-z0-9_]+: the kernel body is not written yet \([^)]*\)" "$out"/given_*.log | sort -u
      verdict given $rc "every exercise refused with its message, no crash, in $((SECONDS - start)) s"
      ;;
    *)
      echo "unknown step '$s' (build, solved, bench, given)"
      exit 2
      ;;
  esac
done
echo "course check: $([ $status = 0 ] && echo all steps passed || echo FAILED); logs in $out"
exit $status
