#!/usr/bin/env bash
# Starts N ranks of a multi-GPU program on this host, one process per GPU, the way torchrun does:
# RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE for each, and a fresh REDU_NCCL_ID_FILE through which
# rank 0 hands NCCL's unique id to the others (multigpu/unique_id_file.hpp). NVLink multicast stays off:
# NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set when unset, and
# a launch with any of them set to another value is refused.
# Waits for every rank. Exit status: 0 when all ranks succeed; 77 when all ranks exit 77 (skipped: not
# enough GPUs); otherwise the first other failure's status. When a rank fails or skips, the others (which
# may be waiting for it inside NCCL) get REDU_LAUNCH_GRACE_S seconds (default 10) to finish, then are
# killed (and the launch fails).
# Usage: scripts/multigpu_launch.sh N program [args...]
set -uo pipefail

usage() { echo "usage: $0 N program [args...]   (N: ranks = GPUs, 1 to 64)" >&2; exit 2; }
[ $# -ge 2 ] || usage
n="$1"
shift
[[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 64 ] || usage

for setting in NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1; do
  name="${setting%%=*}"
  off="${setting#*=}"
  if [ -n "${!name+x}" ] && [ "${!name}" != "$off" ]; then
    echo "multigpu_launch: $name=${!name}: NVLink multicast must stay off; unset it or set $name=$off" >&2
    exit 2
  fi
  export "$name=$off"
done

rendezvous="$(mktemp -d "${TMPDIR:-/tmp}/multigpu_launch.XXXXXX")"
trap 'rm -rf "$rendezvous"' EXIT
export REDU_NCCL_ID_FILE="$rendezvous/nccl_id"
export WORLD_SIZE="$n" LOCAL_WORLD_SIZE="$n"

pids=()
for ((r = 0; r < n; r++)); do
  RANK="$r" LOCAL_RANK="$r" "$@" &
  pids+=($!)
done

status=0       # the launch's exit status
skipped=0      # ranks that exited 77
remaining=$n
failed_at=""
declare -A done_pid=()
while [ "$remaining" -gt 0 ]; do
  for pid in "${pids[@]}"; do
    [ -n "${done_pid[$pid]:-}" ] && continue
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      code=$?
      done_pid[$pid]=1
      remaining=$((remaining - 1))
      if [ "$code" -eq 77 ]; then
        # A skip: the other ranks should skip too. One that does not (it found its GPU) would wait for
        # this rank inside NCCL forever, so the grace period starts here as well.
        skipped=$((skipped + 1))
        [ -z "$failed_at" ] && failed_at=$SECONDS
      fi
      if [ "$code" -ne 0 ] && [ "$code" -ne 77 ] && [ "$status" -eq 0 ]; then
        status=$code
        failed_at=$SECONDS
        echo "multigpu_launch: a rank (pid $pid) exited with status $code" >&2
      fi
    fi
  done
  if [ -n "$failed_at" ] && [ $((SECONDS - failed_at)) -ge "${REDU_LAUNCH_GRACE_S:-10}" ]; then
    for pid in "${pids[@]}"; do
      if [ -z "${done_pid[$pid]:-}" ]; then
        echo "multigpu_launch: stopping rank pid $pid (a peer failed)" >&2
        kill "$pid" 2>/dev/null
      fi
    done
    failed_at=""
  fi
  [ "$remaining" -gt 0 ] && sleep 0.1
done

if [ "$status" -eq 0 ] && [ "$skipped" -eq "$n" ]; then
  exit 77
fi
if [ "$status" -eq 0 ] && [ "$skipped" -gt 0 ]; then
  echo "multigpu_launch: $skipped of $n ranks skipped (exit 77) while the others ran: the ranks disagree" >&2
  exit 1
fi
exit "$status"
