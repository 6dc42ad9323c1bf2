#!/usr/bin/env bash
# On a GPU machine: does the project run on GPUs it was not built for? (docs/gpus.md) It builds the project
# several ways and runs the whole test suite from each (REQUIRE_GPU=1 ctest, the benchmark excluded):
#   compute_75, compute_80, compute_89  PTX for that architecture only (CMAKE_CUDA_ARCHITECTURES=80-virtual),
#                                       which the driver JIT-compiles for the GPU present: the code a binary
#                                       built for a T4, an A100 or an L4 runs on this GPU. What needs a newer
#                                       GPU must be reported unavailable, with the reason, and skipped;
#                                       everything else must pass.
#   portable                            the portable preset's fat binary (SASS for sm_75 ... sm_120, PTX for
#                                       the newest): everything the GPU supports must be available and pass.
# Each run's test report lands in results/<gpu-slug>/tests_<build>.json, naming the build's architectures,
# the code the GPU ran and what was unavailable; the compute_80 build also runs a small sweep into
# results/<gpu-slug>/bench_compute_80.json, whose context says the same. With $OUT set (the device tool),
# copies of them and logs.tgz land there too. The set of unavailable implementations is checked against
# what their declared requirements predict (reduce_bench --list_requirements).
#
# Usage: scripts/portability_gpu_check.sh [build...]     (default: compute_75 compute_80 compute_89 portable)
# The builds compile at once; their test runs then take a GPU each where there are several (one machine
# of 4 GPUs runs all four side by side), else one after the other. Each build keeps a folder of its own, so
# a later call on the same machine rebuilds nothing and can run the rest (e.g. `... compute_89 portable`).
#   REDU_CCCL_ROOT=<folder>, REDU_BENCHMARK_SOURCE=<folder> as in scripts/gpu_run.sh (a machine without a
#   network); REDU_SKIP_SWEEP=1 leaves out the compute_80 sweep.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
builds=("$@")
[ ${#builds[@]} -eq 0 ] && builds=(compute_75 compute_80 compute_89 portable)
out="${OUT:-$root/build/portability-check}"
logs="$root/build/portability-logs"
rm -rf "$logs" && mkdir -p "$out" "$logs"
export REDU_CODE_ID="${REDU_CODE_ID:-$(scripts/code_id.sh)}"
slug="$(python3 -c 'import subprocess,re;n=subprocess.check_output(["nvidia-smi","--query-gpu=name","--format=csv,noheader"]).decode().splitlines()[0];print(re.sub(r"[^a-z0-9]+","-",n.lower()).strip("-"))')"
device_arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')"
gpus="$(nvidia-smi -L | grep -c '^GPU ')"
cores="$(nproc)"
results="results/$slug"
mkdir -p "$results"
touch "$logs/start"
status=0
step() { echo "== $1 ($(date +%T))"; }
echo "code_id $REDU_CODE_ID, $gpus GPU(s) of sm_$device_arch, $cores cores: ${builds[*]}"

configure_args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DREDU_MULTIGPU=OFF -DREDU_TEST_SHARDS=16)
if [ -n "${REDU_BENCHMARK_SOURCE:-}" ]; then
  configure_args+=(-DFETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK="$REDU_BENCHMARK_SOURCE")
else
  configure_args+=(-DREDU_DOWNLOAD_BENCHMARK=OFF) # the system's library serves a run that times little
fi
[ -n "${REDU_CCCL_ROOT:-}" ] && configure_args+=(-DREDU_CCCL_ROOT="$REDU_CCCL_ROOT")

# The architecture a build's code was compiled for (the column of --list_requirements that predicts it).
code_arch() {
  case "$1" in
    compute_*) echo "${1#compute_}" ;;
    *) echo "$device_arch" ;; # the fat binary holds SASS for the GPU present
  esac
}

step "1. configure and build ${builds[*]} at once (reduce_tests, reduce_bench, multigpu_tests)"
for name in "${builds[@]}"; do
  case "$name" in
    compute_*) arch_args=(-DCMAKE_CUDA_ARCHITECTURES="${name#compute_}-virtual") ;;
    portable) arch_args=(-DREDU_ARCHITECTURES=portable -DCMAKE_CUDA_FLAGS=--threads=4) ;;
    *) echo "unknown build '$name' (compute_75, compute_80, compute_89, portable)"; exit 2 ;;
  esac
  dir="build-check-$name"
  {
    start=$SECONDS
    cmake -S . -B "$dir" "${configure_args[@]}" "${arch_args[@]}" && \
      nice ninja -C "$dir" -j "$cores" -l "$((cores + 2))" reduce_tests reduce_bench multigpu_tests
    echo "build $name: exit $?, $((SECONDS - start)) s"
  } > "$logs/build_$name.log" 2>&1 &
done
wait
for name in "${builds[@]}"; do
  grep -E '^-- (CUDA architectures|nvcc|CCCL)' "$logs/build_$name.log"
  tail -n 1 "$logs/build_$name.log"
  grep -q "build $name: exit 0," "$logs/build_$name.log" || { status=1; grep -m 5 -B 2 -A 8 'error' "$logs/build_$name.log"; }
done

# One build's whole test run, on the GPU given, with `lane` cores: the JIT cache warmed first, then ctest,
# then its report; the last line says "result NAME: pass" or "result NAME: fail".
test_one() {
  local name="$1" gpu="$2" lane="$3" dir="build-check-$1" arch rc=0
  test_run "$@" || rc=1
  echo "result $name: $([ $rc = 0 ] && echo pass || echo fail)"
}
test_run() {
  local name="$1" gpu="$2" lane="$3" dir="build-check-$1" arch
  arch="$(code_arch "$name")"
  export CUDA_VISIBLE_DEVICES="$gpu" REQUIRE_GPU=1
  # JIT-compiled PTX is cached per build (the driver's compute cache): one pass over every implementation
  # (GraphCapture: one case each, spread over as many processes as cores) compiles every module once, so
  # the 16 test shards find it compiled instead of each compiling it again.
  export CUDA_CACHE_PATH="$root/$dir/jit-cache" CUDA_CACHE_MAXSIZE=4294967296
  local start=$SECONDS
  for i in $(seq 0 $((lane - 1))); do
    GTEST_TOTAL_SHARDS=$lane GTEST_SHARD_INDEX=$i "./$dir/tests/reduce_tests" --gtest_filter='Registry/GraphCapture.*' \
      > /dev/null 2>&1 &
  done
  wait
  echo "warm-up (JIT-compiling $name's code for this GPU where it is PTX): $((SECONDS - start)) s"

  # What is unavailable here against what the declared requirements predict for this build's code.
  "./$dir/bench/reduce_bench" --list | awk -F'\t' 'NR > 1 && $NF != "yes" {print $1}' | sort > "$logs/unavailable_$name.txt"
  "./$dir/bench/reduce_bench" --list_requirements \
    | awk -F'\t' -v col="sm_$arch" 'NR == 1 {for (i = 1; i <= NF; ++i) if ($i == col) c = i; next} c && $c == "no" {print $1}' \
    | sort > "$logs/predicted_$name.txt"
  if cmp -s "$logs/unavailable_$name.txt" "$logs/predicted_$name.txt"; then
    echo "unavailable, as the requirements predict for sm_$arch code: $(paste -sd, "$logs/unavailable_$name.txt" | sed 's/^$/none/')"
  else
    echo "UNEXPECTED: unavailable $(paste -sd, "$logs/unavailable_$name.txt"), predicted $(paste -sd, "$logs/predicted_$name.txt")"
    "./$dir/bench/reduce_bench" --list | awk -F'\t' 'NR > 1 && $NF != "yes" {print "  " $1 ": " $NF}'
    return 1
  fi

  rm -rf "$dir/tests/reports"
  start=$SECONDS
  local rc=0
  ctest --test-dir "$dir" --label-exclude benchmark -j "$lane" --output-on-failure > "$logs/ctest_$name.log" 2>&1 || rc=1
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Not Run|Timeout" "$logs/ctest_$name.log"
  echo "ctest $name: $((SECONDS - start)) s"
  python3 scripts/merge_test_reports.py --code-id "$REDU_CODE_ID" --out "$results/tests_$name.json" \
    "$dir"/tests/reports/*.json || rc=1
  if [ "$name" = compute_80 ] && [ "${REDU_SKIP_SWEEP:-0}" != 1 ]; then
    # A small sweep: f32 sums at 2^16 ... 2^24 and the quick sweep's segmented shapes; its context's
    # cuda_architectures and device_code say what the code was compiled for.
    start=$SECONDS
    "./$dir/bench/reduce_bench" --sweep=quick --min_log2=16 --max_log2=24 --samples=5 --code_id="$REDU_CODE_ID" \
      --benchmark_out="$results/bench_compute_80.json" --benchmark_out_format=json > "$logs/sweep_$name.log" 2>&1 || rc=1
    grep -E '^reduce_bench: skipping' "$logs/sweep_$name.log"
    if [ -s "$results/bench_compute_80.json" ]; then
      python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["context"]; print("bench_compute_80.json:", ", ".join(k + " " + c[k] for k in ("cuda_architectures", "device_code", "unavailable")))' \
        "$results/bench_compute_80.json" || rc=1
    else
      echo "sweep: no bench_compute_80.json; the end of its log:"
      tail -n 5 "$logs/sweep_$name.log"
      rc=1
    fi
    echo "sweep: $((SECONDS - start)) s"
  fi
  return $rc
}

step "2. tests, $( [ "$gpus" -ge "${#builds[@]}" ] && echo "a GPU per build, side by side" || echo "one build after the other")"
i=0
side_by_side=$([ "$gpus" -ge "${#builds[@]}" ] && echo 1 || echo 0)
lane=$([ "$side_by_side" = 1 ] && echo $((cores / ${#builds[@]})) || echo "$cores")
[ "$lane" -gt 16 ] && lane=16 # the test shards (REDU_TEST_SHARDS) run at most 16 at once
for name in "${builds[@]}"; do
  if [ ! -x "build-check-$name/tests/reduce_tests" ]; then
    echo "result $name: fail (not built)" > "$logs/test_$name.log"
  elif [ "$side_by_side" = 1 ]; then
    test_one "$name" "$i" "$lane" > "$logs/test_$name.log" 2>&1 &
  else
    test_one "$name" 0 "$lane" > "$logs/test_$name.log" 2>&1
  fi
  i=$((i + 1))
done
wait
for name in "${builds[@]}"; do
  echo "-- $name"
  cat "$logs/test_$name.log"
  grep -q "^result $name: pass" "$logs/test_$name.log" || status=1
done

# Only the results files written since the start (the device tool brings back a few files only).
find "$results" -maxdepth 1 -name '*.json' -newer "$logs/start" -exec cp {} "$out/" \; 2>/dev/null || true
tar -C "$logs" -czf "$out/logs.tgz" . 2>/dev/null || true
echo "portability check status $status"
exit $status
