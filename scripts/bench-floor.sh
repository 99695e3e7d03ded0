#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# The three figures of "closer to the floor", side by side in one run on the
# same machine and cores, with their spread, and peak memory (the
# repositories of bench-real.sh and bench-argocd.sh: real community charts
# from the Go modules internal/corpus pins). Prints a Markdown table for
# docs/performance.md.
#
#   scripts/bench-floor.sh [RUNS] [BASE]    (default 5 runs; BASE: a revision
#                                            measured alongside, for before
#                                            and after)
#
# P1:   render --all of 200 targets against the loop users ran (sops -d,
#       then helm template per target).
# P2:   one target of 2,000 as Argo CD's plugin runs it (render --argocd,
#       process start included) against one helm template of the same chart
#       and values (decrypted beforehand, not timed).
# diff: a change to one common values file (every cluster's target of that
#       namespace: 20 of 200) against render --all of the same repository.
# P4:   peak RSS of render --all on 2,000 targets.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
base=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"; [ -z "$base" ] || git worktree remove --force "$work/base-src" 2>/dev/null || true' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
(cd internal/corpus && GOTOOLCHAIN=auto go mod download)
tools=(repotool)
if [ -n "$base" ]; then
  git worktree add -q --detach "$work/base-src" "$base"
  (cd "$work/base-src" && go build -o "$bin/repotool-base" ./cmd/repotool)
  tools=(repotool repotool-base)
fi
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
go run -tags tools ./tools/gensynth -real -clusters 20 -namespaces 10 -out "$work/r200" >/dev/null
go run -tags tools ./tools/gensynth -real -clusters 200 -namespaces 10 -out "$work/r2000" >/dev/null
git -C "$work/r200" init -q && git -C "$work/r200" add -A && git -C "$work/r200" commit -qm base
common=$(find "$work/r200/namespaces/ns-0004" -name 'common-values-*.yaml' ! -name '*.secret.yaml' | sort | head -1)
echo "# a comment" >> "$common"

p2_setup "$work/r2000"
if ! cmp -s <(p2_plugin repotool) <(helm_one); then echo "render --argocd and helm template disagree on $c/$ns" >&2; exit 1; fi
affected=$("$bin/repotool" diff "$work/r200" --base HEAD -o json | jq '.targets | length')

# spread prints "median (min–max)" of the numbers, one a line, times scale.
spread() { sort -n | awk -v s="$1" '{a[NR]=$1*s} END {printf "%.3g (%.3g–%.3g)", a[int((NR+1)/2)], a[1], a[NR]}'; }
declare -A t
for _ in $(seq "$runs"); do
  rm -rf "$work/out-old"
  t[loop]+="$(elapsed old_render_loop "$work/r200" "$work/out-old") "
  t[helm]+="$(elapsed helm_one) "
  for tool in "${tools[@]}"; do
    all=$(elapsed "$bin/$tool" render "$work/r200" --all)
    one=$(elapsed p2_plugin "$tool")
    d=$(elapsed "$bin/$tool" diff "$work/r200" --base HEAD)
    t[$tool.all]+="$all "
    t[$tool.p2]+="$one "
    t[$tool.diff]+="$d "
    t[$tool.diffratio]+="$(echo "$d / $all" | bc -l) "
  done
done
lines() { tr ' ' '\n' | grep -v '^$'; }
loop=$(lines <<< "${t[loop]}" | median) helm=$(lines <<< "${t[helm]}" | median)
echo "| figure ($runs runs: median (min–max)) | ${tools[*]} |"
echo "|---|$(printf -- '---|%.0s' "${tools[@]}")"
row() { # row LABEL CELL-FUNCTION
  printf '| %s |' "$1"
  for tool in "${tools[@]}"; do printf ' %s |' "$($2 "$tool")"; done
  echo
}
p1() { printf '%s s against %.1f s: **%.1fx**' "$(lines <<< "${t[$1.all]}" | spread 1)" "$loop" \
  "$(echo "$loop / $(lines <<< "${t[$1.all]}" | median)" | bc -l)"; }
p2() { printf '%s ms against %.0f ms: **%.2fx**' "$(lines <<< "${t[$1.p2]}" | spread 1000)" "$(echo "$helm * 1000" | bc -l)" \
  "$(echo "$(lines <<< "${t[$1.p2]}" | median) / $helm" | bc -l)"; }
diffcell() { printf '%s s: **%s x**' "$(lines <<< "${t[$1.diff]}" | spread 1)" "$(lines <<< "${t[$1.diffratio]}" | spread 1)"; }
p4() { printf '%d MB' "$(( $( { /usr/bin/time -f %M "$bin/$1" render "$work/r2000" --all 2>&1 >/dev/null || true; } | tail -1) / 1024 ))"; }
initms() { (cd "$tdir" && GODEBUG=inittrace=1 "$bin/$1" version 2>&1 >/dev/null | awk '/^init / {n++; t+=$5} END {printf "%.0f ms (%d packages)", t, n}'); }
row 'P1: `render --all`, 200 targets, against the sops + `helm template` loop (goal ≥ 20x)' p1
row 'P2: one target of 2,000 (`render --argocd`, process start included) against one `helm template` (goal ≤ 0.7x)' p2
row "diff of a change to one common values file ($affected of 200 targets) against \`render --all\` (goal ≤ 0.3x)" diffcell
row 'P4: peak RSS, `render --all` on 2,000 targets (≤ 300 MB)' p4
row 'package initialisation (`GODEBUG=inittrace=1`)' initms
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3), helm $("$bin/helm" version --template '{{.Version}}')${base:+, base $base}"
