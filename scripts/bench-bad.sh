#!/usr/bin/env bash
# Peak memory of lint against render --all over the bad-input corpus
# (testdata/bad): each case's repository, as TestBadInputs builds it, linted
# and rendered by the repotool binary, one process each, measured with GNU
# time's maximum resident set size. Prints a row per case and the largest
# peaks and ratio; docs/performance.md records a run.
#
#   scripts/bench-bad.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/bin
go build -o "$bin/repotool" ./cmd/repotool
export SOPS_AGE_KEY_FILE=$PWD/testdata/age-TEST-ONLY.key
command -v /usr/bin/time >/dev/null || { echo "bench-bad.sh needs GNU time (Debian's time package)" >&2; exit 1; }

go test ./cmd/repotool/cli -count=1 -run 'TestBadInputs$' -args -bad-out "$work/cases" >/dev/null

# peak prints the command's maximum resident set size in MiB.
peak() {
  /usr/bin/time -f '%M' -o "$work/time" "$@" >/dev/null 2>&1 || true
  echo "scale=1; $(tail -1 "$work/time") / 1024" | bc
}

printf '%-44s %10s %10s %6s\n' case "lint MiB" "render MiB" ratio
max_lint=0 max_render=0 max_ratio=0 worst=
for dir in "$work"/cases/*/; do
  name=$(basename "$dir")
  l=$(peak "$bin/repotool" lint "$dir/repo")
  r=$(peak "$bin/repotool" render "$dir/repo" --all)
  ratio=$(echo "scale=2; $l / $r" | bc)
  printf '%-44s %10s %10s %6s\n' "$name" "$l" "$r" "$ratio"
  if (( $(echo "$l > $max_lint" | bc) )); then max_lint=$l; fi
  if (( $(echo "$r > $max_render" | bc) )); then max_render=$r; fi
  if (( $(echo "$ratio > $max_ratio" | bc) )); then max_ratio=$ratio worst=$name; fi
done
echo
echo "largest peak: lint $max_lint MiB, render --all $max_render MiB ($(echo "scale=2; $max_lint / $max_render" | bc)x)"
echo "largest ratio of one case: ${max_ratio}x ($worst)"
