#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# Side-by-side: `repotool diff` against what users do today to see what a
# change deploys (two checkouts, render every target of both with sops -d
# and helm template, then diff -r), and `repotool lint --changed-since`
# against the full `repotool lint` the pre-commit hook used to run. Same
# synthetic monorepos, machine and cores; helm and sops are built from the
# module versions in go.mod. Prints Markdown tables for docs/performance.md.
#
#   scripts/bench-diff.sh [RUNS]    (default 3)
#
# diff: 200 targets (10 clusters x 18 application + 2 platform namespaces),
# one common values file changed. lint: 1,840 targets (92 clusters x 18 + 2),
# one cluster values file changed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
commit() { git -C "$1" init -q && git -C "$1" add -A && git -C "$1" commit -qm base; }

# The loop users ran, at its best here: dependencies vendored, no helm
# dependency build.

# old_diff REPO: check the base out next to the working tree, render both,
# diff -r.
old_diff() {
  local repo=$1
  rm -rf "$work/base" "$work/out-base" "$work/out-head"
  git -C "$repo" worktree add -q --detach "$work/base" HEAD
  old_render_loop "$work/base" "$work/out-base"
  old_render_loop "$repo" "$work/out-head"
  diff -r "$work/out-base" "$work/out-head" > "$work/old.diff" || true
  git -C "$repo" worktree remove --force "$work/base"
}

# diff: one common values file of 200 targets.
go run -tags tools ./tools/gensynth -clusters 10 -namespaces 18 -out "$work/d" >/dev/null
commit "$work/d"
sed -i 's/LOG_FORMAT: json/LOG_FORMAT: text/' "$work/d/namespaces/ns-0000/common-values-a.yaml"
affected=$("$bin/repotool" diff "$work/d" --base HEAD -o json | jq '.targets | length')
old_times=() new_times=()
for _ in $(seq "$runs"); do
  old_times+=("$(elapsed old_diff "$work/d")")
  new_times+=("$(elapsed "$bin/repotool" diff "$work/d" --base HEAD)")
done
old=$(printf '%s\n' "${old_times[@]}" | median)
new=$(printf '%s\n' "${new_times[@]}" | median)

# lint: one cluster values file of 1,840 targets.
go run -tags tools ./tools/gensynth -clusters 92 -namespaces 18 -out "$work/l" >/dev/null
commit "$work/l"
echo "# a comment" >> "$work/l/clusters/cluster-000/ns-0003/dev-values-a.yaml"
git -C "$work/l" add -A
full_times=() changed_times=() staged_times=()
for _ in $(seq "$runs"); do
  full_times+=("$(elapsed "$bin/repotool" lint "$work/l")")
  changed_times+=("$(elapsed "$bin/repotool" lint "$work/l" --changed-since HEAD)")
  staged_times+=("$(elapsed "$bin/repotool" lint "$work/l" --staged)")
done
full=$(printf '%s\n' "${full_times[@]}" | median)
changed=$(printf '%s\n' "${changed_times[@]}" | median)
staged=$(printf '%s\n' "${staged_times[@]}" | median)

echo "| scenario (median of $runs runs) | today | repotool | speed-up |"
echo "|---|---|---|---|"
printf '| diff: 200 targets, one common values file changed (%d targets affected) | two checkouts, sops + helm template of every target twice, diff -r: %.1f s | `diff --base HEAD`: %.2f s | %.0fx |\n' "$affected" "$old" "$new" "$(echo "$old / $new" | bc -l)"
printf '| lint: 1,840 targets, one cluster values file changed | `lint` (the old pre-commit hook): %.2f s | `lint --changed-since HEAD`: %.2f s | %.0fx |\n' "$full" "$changed" "$(echo "$full / $changed" | bc -l)"
printf '| the same, staged | | `lint --staged` (the hook now): %.2f s | %.0fx |\n' "$staged" "$(echo "$full / $staged" | bc -l)"
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3), helm $("$bin/helm" version --template '{{.Version}}')"
