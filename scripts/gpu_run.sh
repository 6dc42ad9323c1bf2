#!/usr/bin/env bash
# On a GPU machine: build, run every test for real (REQUIRE_GPU=1), run the benchmark sweep, the
# accuracy, pi and launch-cost studies, (with REDU_SANITIZE=1) compute-sanitizer and (with 2+ GPUs) the
# multi-GPU tests and benchmark, and the Python peers benchmark; results land in results/<gpu-slug>/
# (bench.json, bench_cccl_toolkit.json, tests.json, tests_cccl_toolkit.json, accuracy.json, pi.json,
# launch_cost.json, sanitizer.json, peers.json) and, when $OUT is set (the device tool), copies of them
# plus logs.tgz under $OUT.
# Usage: scripts/gpu_run.sh [extra reduce_bench options]
#   Step 1 is the README's test command itself (REQUIRE_GPU=1 cmake --workflow --preset test); its
#   GoogleTest shards leave reports in build/tests/reports/, merged into tests.json. Step 1b builds and
#   runs the same tests against the CUDA Toolkit's own CCCL (tests_cccl_toolkit.json).
#   REDU_TUNE=1 runs scripts/tune_shapes.py after the tests (step 2b), so the sweep and the studies read
#   the table it writes (tuning/<gpu-slug>.txt, copied to $OUT too, and kept in build/tuned/: a later
#   call on the same machine without REDU_TUNE takes that table, should its tree hold an older one).
#   REDU_TUNE_GROUPS=modern,argext tunes those groups only (the table keeps the others' lines).
#   REDU_SKIP_TESTS=1 skips steps 1-1b (build and tests), REDU_SKIP_TOOLKIT_TESTS=1 step 1b only,
#   REDU_SKIP_BENCH=1 the benchmark sweep, REDU_SKIP_STUDIES=1 accuracy, pi and launch cost,
#   REDU_SKIP_MULTIGPU=1 the multi-GPU step (run only with 2+ GPUs), REDU_SKIP_PEERS=1 the Python peers
#   (about six minutes; REDU_PEERS_ARGS=--quick for a short run); so a run can be split over several
#   calls of a time-limited machine. The peers step needs no build: it times torch, CuPy, Triton, JAX
#   and cuda.compute as the machine's python3 has them (a package it lacks, such as cuda-cccl, goes on
#   PYTHONPATH first: bench/peers/requirements-optional.txt).
#   REDU_SKIP_TOOLKIT_ROWS=1 skips step 3b (the cub.* and thrust.* rows built against the toolkit's CCCL,
#   which no kernel of the project changes), when the GPU time must go to the rest.
#   REDU_CCCL_ROOT=<folder> builds against that CCCL (e.g. the newest, carried to a machine without a network).
#   REDU_BENCHMARK_SOURCE=<folder> builds Google Benchmark's pinned release from that source (a machine
#   without a network; cmake/GoogleBenchmark.cmake).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${OUT:-$root/build/gpu-run}"
logs="$root/build/gpu-logs"
rm -rf "$logs" && mkdir -p "$out" "$logs"
export REDU_CODE_ID="${REDU_CODE_ID:-$(scripts/code_id.sh)}"
export REQUIRE_GPU=1
echo "code_id $REDU_CODE_ID"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw \
  --format=csv > "$logs/nvidia-smi.csv" 2>&1 || true
slug="$(python3 -c 'import subprocess,re;n=subprocess.check_output(["nvidia-smi","--query-gpu=name","--format=csv,noheader"]).decode().splitlines()[0];print(re.sub(r"[^a-z0-9]+","-",n.lower()).strip("-"))')"
results="results/$slug"
mkdir -p "$results"
status=0
step() { echo "== $1 ($(date +%T))"; }

# What a machine without a network is handed: the newest CCCL (cmake/Cccl.cmake) and Google Benchmark's
# source (cmake/GoogleBenchmark.cmake), each a folder carried with the tree.
benchmark_args=()
[ -n "${REDU_BENCHMARK_SOURCE:-}" ] && benchmark_args+=(-DFETCHCONTENT_SOURCE_DIR_GOOGLEBENCHMARK="$REDU_BENCHMARK_SOURCE")
configure_args=("${benchmark_args[@]}")
[ -n "${REDU_CCCL_ROOT:-}" ] && configure_args+=(-DREDU_CCCL_ROOT="$REDU_CCCL_ROOT")
if [ ${#configure_args[@]} -gt 0 ]; then
  cmake --preset release "${configure_args[@]}" > "$logs/configure.log" 2>&1 || status=1
  grep -E '^-- (CCCL|Google Benchmark:)' "$logs/configure.log"
fi

toolkit_cccl="$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")/targets/x86_64-linux"
# Configures a build folder of its own against the toolkit's own CCCL and builds the given targets (all by default).
build_toolkit_cccl() {
  local rc=0
  { cmake -S . -B build-cccl-toolkit -G Ninja -DCMAKE_BUILD_TYPE=Release -DREDU_CCCL_ROOT="$toolkit_cccl" \
      "${benchmark_args[@]}" && cmake --build build-cccl-toolkit ${1:+--target "$@"}; } >> "$logs/build_cccl_toolkit.log" 2>&1 || rc=1
  grep -m 1 -E '^-- CCCL' "$logs/build_cccl_toolkit.log"
  return $rc
}
if [ "${REDU_SKIP_TESTS:-0}" != "1" ]; then
  step "1. README test command (REQUIRE_GPU=1 cmake --workflow --preset test) -> $results/tests.json"
  rm -rf build/tests/reports
  cmake --workflow --preset test > "$logs/test.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|FAILED|Failed|Skipped" "$logs/test.log" | tail -n 15
  python3 scripts/merge_test_reports.py --code-id "$REDU_CODE_ID" --out "$results/tests.json" \
    build/tests/reports/shard_*.json || status=1

  if [ "${REDU_SKIP_TOOLKIT_TESTS:-0}" != "1" ]; then
    step "1b. the same tests built against the CUDA Toolkit's own CCCL -> $results/tests_cccl_toolkit.json"
    build_toolkit_cccl || status=1
    rm -rf build-cccl-toolkit/tests/reports
    ctest --test-dir build-cccl-toolkit --label-exclude benchmark -j 8 --output-on-failure \
      > "$logs/test_cccl_toolkit.log" 2>&1 || status=1
    grep -E "tests passed|tests failed|FAILED|Failed|Skipped" "$logs/test_cccl_toolkit.log" | tail -n 15
    python3 scripts/merge_test_reports.py --code-id "$REDU_CODE_ID" --out "$results/tests_cccl_toolkit.json" \
      build-cccl-toolkit/tests/reports/shard_*.json || status=1
  fi
fi

if [ "${REDU_TUNE:-0}" = "1" ]; then
  step "2b. tuner -> tuning/$slug.txt (read by every kernel from here on; commit it with the results)"
  python3 scripts/tune_shapes.py ${REDU_TUNE_GROUPS:+--groups="$REDU_TUNE_GROUPS"} > "$logs/tune.log" 2>&1 || status=1
  grep -v '^#' "tuning/$slug.txt" 2>/dev/null
  cp "tuning/$slug.txt" "$out/" 2>/dev/null || true
  # Kept in the build folder too: a machine lent call by call receives the developer's tree afresh each
  # time (tuning/ included, the build folder not), and a later call's sweep must not run with the older
  # table (sweeps once did).
  mkdir -p build/tuned && cp "tuning/$slug.txt" "build/tuned/$slug.txt" 2>/dev/null || true
elif [ -f "build/tuned/$slug.txt" ] && ! cmp -s "build/tuned/$slug.txt" "tuning/$slug.txt"; then
  step "2b. the table tuned by an earlier call on this machine replaces tuning/$slug.txt (commit it with the results)"
  cp "build/tuned/$slug.txt" "tuning/$slug.txt"
  grep -v '^#' "tuning/$slug.txt"
  cp "tuning/$slug.txt" "$out/" 2>/dev/null || true
fi

if [ "${REDU_SKIP_BENCH:-0}" != "1" ]; then
  step "3. README benchmark command: the sweep into $results/bench.json"
  REDU_BENCH_ARGS="$*" cmake --workflow --preset bench > "$logs/bench.log" 2>&1 || status=1
  sed -n '/peak .* GB\/s, measured copy/,$p' "$logs/bench.log" | sed 's/^[0-9]*: //' | head -n 150
  if [ "${REDU_SKIP_TOOLKIT_ROWS:-0}" != "1" ]; then
    step "3b. the library rows built against the CUDA Toolkit's own CCCL -> $results/bench_cccl_toolkit.json"
    # The same cub.* and thrust.* rows with the older library, so the notebooks can show what changed.
    build_toolkit_cccl reduce_bench || status=1
    library_rows="$(./build-cccl-toolkit/bench/reduce_bench --list | cut -f1 | grep -E '^(cub|thrust)\.' | paste -sd, -)"
    ./build-cccl-toolkit/bench/reduce_bench --impl="$library_rows" --floor=no --code_id="$REDU_CODE_ID" \
      --benchmark_out="$results/bench_cccl_toolkit.json" --benchmark_out_format=json \
      > "$logs/bench_cccl_toolkit.log" 2>&1 || status=1
    sed -n '/peak .* GB\/s, measured copy/,$p' "$logs/bench_cccl_toolkit.log" | head -n 40
  fi
fi

if [ "${REDU_SKIP_STUDIES:-0}" != "1" ]; then
  step "4. accuracy_study -> $results/accuracy.json"
  ./build/studies/accuracy_study --out="$results/accuracy.json" --code_id="$REDU_CODE_ID" > "$logs/accuracy.log" 2>&1 || status=1
  tail -n 1 "$logs/accuracy.log"
  step "5. pi_study -> $results/pi.json"
  ./build/studies/pi_study --out="$results/pi.json" --code_id="$REDU_CODE_ID" > "$logs/pi.log" 2>&1 || status=1
  tail -n 40 "$logs/pi.log"
  step "5b. launch_cost_study -> $results/launch_cost.json"
  ./build/studies/launch_cost_study --out="$results/launch_cost.json" --code_id="$REDU_CODE_ID" \
    > "$logs/launch_cost.log" 2>&1 || status=1
  tail -n 1 "$logs/launch_cost.log"
fi

if [ "${REDU_SANITIZE:-0}" = "1" ]; then
  step "6. compute-sanitizer -> $results/sanitizer.json"
  scripts/sanitize.sh "$results" || status=1
  cp -r build/sanitizer "$logs/" 2>/dev/null || true
fi

gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')"
if [ "${REDU_SKIP_MULTIGPU:-0}" != "1" ] && [ "$gpus" -ge 2 ]; then
  step "7. $gpus GPUs: multi-GPU tests and multigpu_bench -> $results/multigpu.json (NVLink multicast off)"
  export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
  cmake --build build --target multigpu_tests multigpu_bench > "$logs/multigpu_build.log" 2>&1 || status=1
  REQUIRE_MULTI_GPU=1 ctest --test-dir build -R multigpu --output-on-failure > "$logs/multigpu_tests.log" 2>&1 || status=1
  tail -n 5 "$logs/multigpu_tests.log"
  scripts/multigpu_launch.sh "$gpus" build/multigpu/multigpu_bench --out="$results/multigpu.json" \
    --code_id="$REDU_CODE_ID" > "$logs/multigpu_bench.log" 2>&1 || status=1
  tail -n 20 "$logs/multigpu_bench.log"
fi

if [ "${REDU_SKIP_PEERS:-0}" != "1" ]; then
  step "8. Python peers (torch, CuPy, cuda.compute, Triton, JAX) -> $results/peers.json"
  # shellcheck disable=SC2086
  python3 bench/peers/peers_bench.py ${REDU_PEERS_ARGS:-} --out="$results/peers.json" > "$logs/peers.log" 2>&1 || status=1
  grep -E '^peer |^wrote ' "$logs/peers.log"
fi

# Only the files this call wrote (a device tool may bring back a few files only; older results stay put).
find "$results" -maxdepth 1 -name '*.json' -newer "$logs/nvidia-smi.csv" -exec cp {} "$out/" \; 2>/dev/null || true
tar -C "$logs" -czf "$out/logs.tgz" . 2>/dev/null || true
echo "gpu_run status $status"
exit $status
