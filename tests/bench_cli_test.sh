#!/usr/bin/env bash
# The benchmark binary's behaviour at its edges, one case per ctest entry (tests/CMakeLists.txt).
# Usage: tests/bench_cli_test.sh path/to/reduce_bench CASE
# Exit 0: the case passed; 77 (ctest SKIP_RETURN_CODE): not applicable on this machine, reason printed;
# anything else: failed. REQUIRE_GPU=1 turns "no GPU" into a failure, as in tests/support/gpu.hpp.
set -uo pipefail
bench="$1"
case_name="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# Runs reduce_bench, keeping its exit code in $rc and its output in $tmp/out and $tmp/err.
run_bench() {
  "$bench" "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  echo "reduce_bench $* -> exit $rc"
  sed 's/^/  | /' "$tmp/err" | head -n 5
}
expect_exit() { [ "$rc" = "$1" ] || fail "expected exit $1"; }
expect_error_exit() { [ "$rc" != 0 ] || fail "expected a non-zero exit"; }
# expect_in out|err TEXT: TEXT (fixed string) appears in the last command's stdout or stderr.
expect_in() { grep -qF -- "$2" "$tmp/$1" || fail "expected \"$2\" in std$1"; }
gpu_required() { [ -n "${REQUIRE_GPU:-}" ] && [ "${REQUIRE_GPU}" != 0 ]; }

case "$case_name" in
  unknown_impl)
    run_bench --impl=no.such
    expect_error_exit
    expect_in err "'no.such'"
    run_bench --impl=cub.device_redcue
    expect_error_exit
    expect_in err "did you mean 'cub.device_reduce'?"
    ;;
  unknown_option)
    run_bench --bogus
    expect_error_exit
    expect_in err "unknown option: --bogus"
    expect_in err "reduce_bench --help lists the options"
    ;;
  bad_value)
    for arg in --max_log2=99 --l2=warm; do
      run_bench "$arg"
      expect_error_exit
      expect_in err "$arg"
    done
    ;;
  help_and_list)
    run_bench --help
    expect_exit 0
    expect_in out "--list"
    run_bench --list
    expect_exit 0
    cut -f1 "$tmp/out" | grep -qx 'cub\.device_reduce' || fail "cub.device_reduce missing from --list"
    # name, types, ops, kinds, determinism, idea
    grep -qP '^modern\.atomic\t[a-z0-9,]*f32[a-z0-9,]*\tsum[a-z_,]*\tfull\tnot_guaranteed: [^\t]*f32/sum[^\t]*; [^\t]*gpu_to_gpu: [^\t]*i32/sum[^\t]*\t' "$tmp/out" \
      || fail "--list lacks modern.atomic's types, ops, kinds and determinism"
    ;;
  list_requirements)
    # name, needs, optional, then one column per architecture of the portable list; no GPU needed
    run_bench --list_requirements
    expect_exit 0
    head -n 1 "$tmp/out" | grep -qP '^name\tneeds\toptional\tsm_75\tsm_80\tsm_86\tsm_89\tsm_90\tsm_100\tsm_120$' \
      || fail "--list_requirements has not the columns name, needs, optional, sm_75 ... sm_120"
    grep -qP '^modern\.cluster\tsm_90: thread_block_clusters\t[^\t]*\tno\tno\tno\tno\tyes[^\t]*\tyes[^\t]*\tyes[^\t]*$' "$tmp/out" \
      || fail "--list_requirements does not say modern.cluster runs from sm_90 on"
    grep -qP '^cub\.device_reduce\tany\t-\tyes\tyes\tyes\tyes\tyes\tyes\tyes$' "$tmp/out" \
      || fail "--list_requirements does not say cub.device_reduce runs everywhere"
    # --list ends each line with what the implementation needs and whether it runs here
    run_bench --list
    head -n 1 "$tmp/out" | grep -qP '\tneeds\there$' || fail "--list lacks the needs and here columns"
    ;;
  gpu_or_refusal)
    # Either outcome is checked, decided by the binary itself: with a GPU it benchmarks and its JSON holds
    # the row; without one it refuses before building the sweep, saying why (and REQUIRE_GPU=1 makes that
    # refusal a failure). The sweep options only keep a GPU machine's run short.
    run_bench --impl=cub.device_reduce --types=f32 --ops=sum --min_log2=10 --max_log2=10 --samples=1 --floor=no \
      --benchmark_out="$tmp/out.json" --benchmark_out_format=json
    if [ "$rc" = 0 ]; then
      grep -qF '"name": "full/cub.device_reduce/f32/sum/n:1024' "$tmp/out.json" \
        || fail "exit 0, but the JSON output holds no full/cub.device_reduce/f32/sum/n:1024 row"
      echo "a GPU is present: benchmarked, and the JSON holds the row"
    else
      expect_exit 1
      expect_in err "reduce_bench: cannot benchmark: "
      gpu_required && fail "REQUIRE_GPU is set but reduce_bench refused: $(head -n 1 "$tmp/err")"
      echo "no GPU: refused with the reason"
    fi
    ;;
  out_of_memory_skip)
    mib="$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2> /dev/null | head -n 1)"
    if ! [[ "$mib" =~ ^[0-9]+$ ]]; then
      reason="no GPU (nvidia-smi reports no device memory); the out-of-memory skip needs one"
      gpu_required && fail "REQUIRE_GPU is set but $reason"
      skip "$reason (set REQUIRE_GPU=1 to fail instead)"
    fi
    # 2^k doubles is the smallest such size beyond the device memory (2^(k+3) bytes > mib * 2^20);
    # 2^(k-2) doubles, at most half of it, must still run.
    k=17
    while (((1 << (k - 17)) <= mib)); do k=$((k + 1)); done
    big=$((1 << k)) small=$((1 << (k - 2)))
    echo "device memory $mib MiB: 2^$k doubles cannot fit, 2^$((k - 2)) must run"
    run_bench --impl=cub.device_reduce --types=f64 --ops=sum --min_log2=$((k - 2)) --max_log2=$k --samples=3 \
      --benchmark_out="$tmp/bench.json" --benchmark_out_format=json
    expect_exit 0
    expect_in err "skipping full/cub.device_reduce/f64/sum/n:$big: input does not fit in device memory"
    grep -qF "\"name\": \"full/cub.device_reduce/f64/sum/n:$small/" "$tmp/bench.json" \
      || fail "n:$small missing from the --benchmark_out JSON"
    if grep -q '"error_occurred": true' "$tmp/bench.json"; then fail "a case that fits reported an error"; fi
    ;;
  *)
    fail "unknown case '$case_name'"
    ;;
esac
echo "PASS: $case_name"
