#!/usr/bin/env bash
# Formats kapla's C++ (src/ and tests/, not tests/data) with the repository's .clang-format:
#   scripts/dev/format.sh            # rewrite the files in place
#   scripts/dev/format.sh --check    # list unformatted files, exit 1 if any (ctest source_format)
# Needs clang-format (Debian: clang-format-14, installed by scripts/setup.sh); exits 77 without.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z $fmt ]]; then
  echo "format: clang-format not installed; skipped" >&2
  exit 77
fi
mapfile -d '' files < <(find src tests \( -name '*.cpp' -o -name '*.hpp' \) -not -path 'tests/data/*' -print0 | sort -z)
if [[ ${1:-} == --check ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then
      echo "format: $f is not formatted (run scripts/dev/format.sh)" >&2
      bad=1
    fi
  done
  exit "$bad"
fi
"$fmt" -i "${files[@]}"
