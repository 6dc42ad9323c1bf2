#!/usr/bin/env bash
# The launcher's contract, without a GPU: each case runs scripts/multigpu_launch.sh on small shell
# commands. Usage: launcher_test.sh <launcher> <case>
set -uo pipefail
launcher="$1"
case="$2"
fail() { echo "FAIL ($case): $*" >&2; exit 1; }

case "$case" in
  env_and_multicast_off)
    out="$(env -u NCCL_NVLS_ENABLE -u NVSHMEM_DISABLE_NVLS -u TORCH_SYMM_MEM_DISABLE_MULTICAST bash "$launcher" 3 \
      bash -c 'echo "$RANK/$WORLD_SIZE/$LOCAL_RANK/$LOCAL_WORLD_SIZE $NCCL_NVLS_ENABLE$NVSHMEM_DISABLE_NVLS$TORCH_SYMM_MEM_DISABLE_MULTICAST ${REDU_NCCL_ID_FILE:+id}"')" \
      || fail "launch failed"
    for r in 0 1 2; do
      grep -qx "$r/3/$r/3 011 id" <<<"$out" || fail "rank $r: wrong environment in: $out"
    done ;;
  failure_stops_all)
    # Rank 1 fails at once, rank 0 would wait for a minute: the launch must fail fast with rank 1's status.
    start=$SECONDS
    REDU_LAUNCH_GRACE_S=1 bash "$launcher" 2 bash -c '[ "$RANK" = 1 ] && exit 3; sleep 60'
    code=$?
    [ "$code" -eq 3 ] || fail "exit status $code, expected 3"
    [ $((SECONDS - start)) -lt 30 ] || fail "the waiting rank was not stopped" ;;
  all_skip_is_skip)
    bash "$launcher" 2 bash -c 'exit 77'
    [ $? -eq 77 ] || fail "all ranks skipped: expected 77"
    bash "$launcher" 2 bash -c '[ "$RANK" = 0 ] && exit 77; exit 0'
    [ $? -eq 1 ] || fail "ranks disagreeing (77 and 0): expected 1"
    # One rank skips, the other would wait for it forever (inside NCCL): stopped, and the launch fails.
    start=$SECONDS
    REDU_LAUNCH_GRACE_S=1 bash "$launcher" 2 bash -c '[ "$RANK" = 1 ] && exit 77; sleep 60'
    code=$?
    [ "$code" -ne 0 ] && [ "$code" -ne 77 ] || fail "a lone skip with a waiting peer: exit $code"
    [ $((SECONDS - start)) -lt 30 ] || fail "the waiting rank was not stopped" ;;
  refuses_multicast_on)
    NCCL_NVLS_ENABLE=1 bash "$launcher" 2 true 2>/dev/null
    [ $? -eq 2 ] || fail "NCCL_NVLS_ENABLE=1 was not refused"
    TORCH_SYMM_MEM_DISABLE_MULTICAST=0 bash "$launcher" 2 true 2>/dev/null
    [ $? -eq 2 ] || fail "TORCH_SYMM_MEM_DISABLE_MULTICAST=0 was not refused" ;;
  bad_count)
    bash "$launcher" 0 true 2>/dev/null
    [ $? -eq 2 ] || fail "0 ranks accepted"
    bash "$launcher" two true 2>/dev/null
    [ $? -eq 2 ] || fail "'two' ranks accepted" ;;
  *) fail "unknown case" ;;
esac
echo "ok ($case)"
