#!/usr/bin/env bash
# Prints the code_id: one id for the content of every tracked file that can change a result, i.e.
# everything outside results/, notebooks/ and *.md. It hashes `git ls-files -s` (mode, blob id, path)
# of those files and appends -dirty when uncommitted changes (or untracked files) touch them.
# Where the tree is not a git checkout (the GPU machine gets a copy), REDU_CODE_ID must carry it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  if [ -n "${REDU_CODE_ID:-}" ]; then echo "$REDU_CODE_ID"; exit 0; fi
  echo "code_id.sh: not a git checkout and REDU_CODE_ID is unset" >&2
  exit 1
fi
paths=(. ':(exclude)results' ':(exclude)notebooks' ':(exclude,glob)**/*.md')
id=$(git ls-files -s -- "${paths[@]}" | sha256sum | cut -c1-16)
if [ -n "$(git status --porcelain --untracked-files=normal -- "${paths[@]}")" ]; then
  id="$id-dirty"
fi
echo "$id"
