#!/usr/bin/env bash
# Prints the code_id: one id for the content of every tracked file that can change a result, i.e.
# everything outside results/, notebooks/, tuning/ and *.md. A tuning table (tuning/<gpu-slug>.txt) is
# data measured on one GPU model, not code: every results file names the table it ran with, values
# included (the "tuning" key of its context), so one code_id serves the runs of all GPUs.
# It hashes `git ls-files -s` (mode, blob id, path) of those files and appends -dirty when uncommitted
# changes (or untracked files) touch them.
# REDU_CODE_ID, when set, is printed instead: the GPU run passes the id computed in the developer's
# checkout, since the machine it runs on holds a copy of the tree.
set -euo pipefail
if [ -n "${REDU_CODE_ID:-}" ]; then
  echo "$REDU_CODE_ID"
  exit 0
fi
cd "$(dirname "$0")/.."
git_() { git -c safe.directory='*' "$@"; }
paths=(. ':(exclude)results' ':(exclude)notebooks' ':(exclude)tuning' ':(exclude,glob)**/*.md' ':(exclude)*.md')
files=$(git_ ls-files -s -- "${paths[@]}" 2>/dev/null) || true
if [ -z "$files" ]; then
  echo "code_id.sh: no tracked files found (not a git checkout?) and REDU_CODE_ID is unset" >&2
  exit 1
fi
id=$(printf '%s\n' "$files" | sha256sum | cut -c1-16)
if [ -n "$(git_ status --porcelain --untracked-files=normal -- "${paths[@]}")" ]; then
  id="$id-dirty"
fi
echo "$id"
