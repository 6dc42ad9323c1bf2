#!/usr/bin/env bash
# Break one to see: for a few guarded behaviours, make a small deliberate break in place (one sed edit),
# rebuild, and run the tests that guard it. A mutant counts as caught (PASS) when its check passes on
# the clean code and fails on the mutant; it survived (FAIL) otherwise. The edited file is always put
# back from a saved copy (so uncommitted work in it survives), on success, failure or Ctrl-C.
# Usage: scripts/break_one.sh [--host-only] [--only=PATTERN]   (in a configured tree: cmake --preset ci, or release)
#   --host-only: only the mutants a machine without a GPU can catch (the others are listed as not run).
#   --only=PATTERN: only the mutants whose name matches PATTERN (grep -E).
# Prints a table; exits 1 if any mutant that ran was not caught. Logs: build/break_one/.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2
host_only=0 only=""
for arg in "$@"; do
  case "$arg" in
    --host-only) host_only=1 ;;
    --only=*) only="${arg#--only=}" ;;
    *) echo "unknown option: $arg" >&2; exit 2 ;;
  esac
done
logs="$root/build/break_one"
rm -rf "$logs" && mkdir -p "$logs"
build() { cmake --build build -j"$(nproc)" --target "$@" >> "$logs/build.log" 2>&1; }
saved="" target_file=""

# Puts the mutated file back, unless someone else changed it meanwhile (then the original is kept aside).
restore() {
  [ -n "$target_file" ] || return 0
  if cmp -s "$target_file" "$saved.mutant"; then
    cp "$saved" "$target_file" # a fresh mtime, so the next build recompiles the original
    rm -f "$saved" "$saved.mutant"
  else
    echo "WARNING: $target_file changed during the mutation; its original is kept at $saved" >&2
  fi
  target_file=""
}
trap restore EXIT
trap 'restore; exit 130' INT TERM

echo "building the clean code ($logs/build.log)"
build reduce_tests reduce_bench || { echo "the clean code does not build"; exit 2; }

rows=() failed=0
# mutant NAME host|gpu FILE SED_EXPRESSION BUILD_TARGET CHECK_COMMAND...: the check must fail on the mutant.
mutant() {
  local name="$1" needs="$2" file="$3" expr="$4" target="$5" result log
  shift 5
  log="$logs/$(echo "$name" | tr -c 'a-z0-9\n' '_').log"
  if [ -n "$only" ] && ! echo "$name" | grep -qE -- "$only"; then
    return
  fi
  if [ "$needs" = gpu ] && [ "$host_only" = 1 ]; then
    rows+=("$(printf '%-50s %-4s %s' "$name" "$needs" "not run (needs a GPU)")")
    return
  fi
  # The check's binary is rebuilt first: an earlier mutant of another target may still be linked in
  # (restore() puts its source back, but only this target's build picks that up).
  if ! build "$target"; then
    result="FAIL (the clean code does not build)"
  elif ! "$@" > "$log" 2>&1; then
    result="FAIL (the check fails on the clean code)"
  else
    saved="$(mktemp)" && cp "$file" "$saved" && target_file="$file"
    sed -i "$expr" "$file"
    cp "$file" "$saved.mutant"
    if cmp -s "$file" "$saved"; then
      result="FAIL (the mutation no longer applies)"
    elif ! build "$target"; then
      result="FAIL (the mutant does not build)"
    elif "$@" >> "$log" 2>&1; then
      result="FAIL (survived: the check still passes)"
    else
      result="PASS (caught)"
    fi
    restore
  fi
  [[ "$result" == PASS* ]] || failed=$((failed + 1))
  rows+=("$(printf '%-50s %-4s %s' "$name" "$needs" "$result")")
}

tests=build/tests/reduce_tests
ctest_one() { ctest --test-dir build -R "^$1\$" --output-on-failure; }

mutant "validate() accepts n > max_n" host common/contract/reduction.cpp \
  's/if (p.n > info.max_n)/if (false)/' reduce_tests \
  "$tests" --gtest_filter=Validation.RejectsWhatAnImplementationDoesNotDeclare
mutant "validate() accepts a null input" host common/contract/reduction.cpp \
  's/if (p.n > 0 && p.input == nullptr)/if (false)/' reduce_tests \
  "$tests" --gtest_filter=Validation.RejectsNullPointersNegativeSizesAndBadShapes
mutant "reduce_bench ignores an unknown option" host report/command_line.cpp \
  's/return "unknown option: " + argument;/return "";/' reduce_bench \
  ctest_one bench_cli.unknown_option
mutant "reduce_bench exits 0 on an unknown --impl" host bench/reduce_bench.cpp \
  '/unknown implementation/,/return 2;/ s/return 2;/return 0;/' reduce_bench \
  ctest_one bench_cli.unknown_impl
mutant "run() accepts an undersized workspace" gpu common/contract/reduction.cpp \
  's/workspace.bytes < needed/false/' reduce_tests \
  "$tests" --gtest_filter=BadInputOnGpu.RefusedCallsWriteNothing
mutant "run() skips the segment offsets check" gpu common/contract/reduction.cpp \
  '/REDU_TRY(check_offsets(problem, stream));/d' reduce_tests \
  "$tests" --gtest_filter=BadInputOnGpu.BadSegmentOffsetsAreRefusedBeforeLaunch
mutant "validate() lets an output overlap the input" host common/contract/reduction.cpp \
  's/if (r != w \&\& ranges.items\[w\].overlaps(ranges.items\[r\]))/if (false)/' reduce_tests \
  "$tests" --gtest_filter=Validation.RejectsMisalignedPointersOverlapsAndElementsOutsideEverySegment
mutant "float min identity is FLT_MAX, not +inf" gpu common/contract/ops.cuh \
  '0,/return ::cuda::std::numeric_limits<T>::infinity();/ s/numeric_limits<T>::infinity()/numeric_limits<T>::max()/' reduce_tests \
  "$tests" --gtest_filter=SpecialValues.NanAndInfinitiesFollowTheDocumentedSemantics
mutant "segmented.adaptive leaves piece counters to the workspace" gpu handwritten/segmented/classify_small.cuh \
  '/ws.big_pieces_done\[entry\] *= 0;/d' reduce_tests \
  "$tests" --gtest_filter='Registry/WorkspaceReuse.*segmented_adaptive*'
mutant "leimao.large_array_atomic adds subnormal floats with atomicAdd" gpu handwritten/leimao/04_large_array_atomic_finish.cu \
  's/atomic_add_min_magnitude = 0x1p-80f/atomic_add_min_magnitude = 0.0f/' reduce_tests \
  "$tests" --gtest_filter='Registry/FloatSums.ExactDataGiveExactSums/leimao_large_array_atomic_f32_sum_full'
mutant "halves.segmented chains a lane's sum in float" gpu handwritten/halves/fold.cuh \
  's/ReduceOp::id == Op::sum_squares, double, float>/ReduceOp::id == Op::sum_squares, float, float>/' reduce_tests \
  "$tests" --gtest_filter='Registry/FloatSums.SameSignDataStayWithinTheStatedBound/halves_segmented_*_sum_squares_segmented'
mutant "leimao.large_array_atomic keeps whichever zero lands first" gpu handwritten/leimao/04_large_array_atomic_finish.cu \
  's/: combine_signed_zeros(stored, value, op);/: op(stored, value);/' reduce_tests \
  "$tests" --gtest_filter='Registry/ZeroSign.RepeatedRunsGiveTheSameZero/leimao_large_array_atomic_f*_m*_full'
mutant "cub.reduce_gpu_to_gpu's top-of-range departure undeclared" gpu cub_baseline/reduce_gpu_to_gpu.cu \
  's/top_of_range_sum_departure = {{DType::f64},/top_of_range_sum_departure = {{},/' reduce_tests \
  "$tests" --gtest_filter='Registry/TopOfRange.*/cub_reduce_gpu_to_gpu_full'
mutant "reduce_bench gives up when an input does not fit" gpu bench/harness.cpp \
  's|n /= 2;|n = 0;|' reduce_bench \
  ctest_one bench_cli.out_of_memory_skip

echo "rebuilding the clean code"
build reduce_tests reduce_bench || echo "WARNING: the clean rebuild failed; build/ may hold a mutant"
printf '%-50s %-4s %s\n' "mutant" "runs" "result"
printf '%s\n' "${rows[@]}"
echo "$failed mutant(s) not caught"
[ "$failed" = 0 ]
