#!/usr/bin/env bash
# On a GPU machine: build, run every test for real (REQUIRE_GPU=1), run the benchmark sweep, and
# leave the results under results/<gpu-slug>/ (bench.json, tests.json) plus logs under $OUT if set.
# Usage: scripts/gpu_run.sh [extra reduce_bench options]   (REDU_SKIP_BENCH=1 to test only)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${OUT:-$root/build/gpu-run}"
mkdir -p "$out"
export REDU_CODE_ID="${REDU_CODE_ID:-$(scripts/code_id.sh)}"
export REQUIRE_GPU=1
echo "code_id $REDU_CODE_ID"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw \
  --format=csv > "$out/nvidia-smi.csv" 2>&1 || true
status=0

# 1. The README's test command: configure, build, every test through ctest.
cmake --workflow --preset test > "$out/test.log" 2>&1 || status=1
tail -n 25 "$out/test.log"

# 2. A machine-readable report: the same tests, sharded over processes, merged into tests.json.
slug="$(python3 -c 'import subprocess,re;n=subprocess.check_output(["nvidia-smi","--query-gpu=name","--format=csv,noheader"]).decode().splitlines()[0];print(re.sub(r"[^a-z0-9]+","-",n.lower()).strip("-"))')"
mkdir -p "results/$slug"
shards=8
shard_dir="$root/build/test-shards"
rm -rf "$shard_dir" && mkdir -p "$shard_dir"
for i in $(seq 0 $((shards - 1))); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i ./build/tests/reduce_tests \
    --gtest_output="json:$shard_dir/shard-$i.json" > "$shard_dir/shard-$i.log" 2>&1 &
done
wait
python3 scripts/merge_test_reports.py --code-id "$REDU_CODE_ID" --out "results/$slug/tests.json" \
  "$shard_dir"/shard-*.json || status=1
cat "$shard_dir"/shard-*.log > "$out/tests-direct.log"

# 3. The README's benchmark command: the default sweep into results/<gpu-slug>/bench.json.
if [ "${REDU_SKIP_BENCH:-0}" != "1" ]; then
  REDU_BENCH_ARGS="$*" cmake --workflow --preset bench > "$out/bench.log" 2>&1 || status=1
  sed -n '/peak .* GB\/s, measured copy/,$p' "$out/bench.log" | head -n 120
  cp "results/$slug/bench.json" "$out/" 2>/dev/null || true
fi
cp "results/$slug/tests.json" "$out/" 2>/dev/null || true
echo "gpu_run status $status"
exit $status
