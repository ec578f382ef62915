#!/usr/bin/env bash
# The format stage of tests/run.sh: every C++ file git tracks is formatted as
# .clang-format says (clang-format --dry-run -Werror). To fix a failure:
#   git ls-files '*.cc' '*.h' | xargs clang-format -i
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then
  echo "clang-format not found: install Debian package clang-format-14" >&2
  exit 1
fi
git ls-files -z '*.cc' '*.h' | xargs -0 "$fmt" --dry-run -Werror
echo "format: $(git ls-files '*.cc' '*.h' | wc -l) files formatted as .clang-format says"
