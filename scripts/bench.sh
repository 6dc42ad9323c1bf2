#!/usr/bin/env bash
# Runs the benchmark sweep and writes results/<gpu-slug>/bench.json, stamped with the code_id.
# Usage: scripts/bench.sh path/to/reduce_bench [extra reduce_bench options]
# REDU_BENCH_ARGS adds options too (e.g. REDU_BENCH_ARGS="--sweep=quick" cmake --workflow --preset bench).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bench="$1"; shift
code_id="$("$root/scripts/code_id.sh")"
# shellcheck disable=SC2086
exec "$bench" --results_dir="$root/results" --code_id="$code_id" ${REDU_BENCH_ARGS:-} "$@"
