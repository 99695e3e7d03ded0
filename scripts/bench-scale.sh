#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# Issue 47's table: time and peak memory of each command (layout, also in
# a Git work tree, hydrate into a folder and again, diff of a change,
# render, lint) on generated
# repositories of real community charts (internal/testing/synth, as
# bench-real.sh), and of lint in shards and their merge, so that memory is
# seen to follow the work (or not), lint checked a cluster at a time (the
# default above 1,000 targets) and in one pass. Prints a Markdown table
# for docs/performance.md. A shard's memory is set beside that of a
# repository holding only the shard's targets (one cluster of as many
# namespaces), and beside the shard given a CRD inventory made once.
#
#   scripts/bench-scale.sh [NAMESPACES...]   (default: 100 1000, with 20
#                                              clusters: 2,000 and 20,000
#                                              targets; the second needs
#                                              several GB of memory)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then sizes=(100 1000); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
(cd internal/corpus && GOTOOLCHAIN=auto go mod download)
clusters=20 shards=20

# measure CMD... prints "seconds, MB" of one run: wall time and peak RSS.
# The program's pages are dropped from the page cache first: peak RSS
# counts the pages of the binary a run maps, and a file read whole (as the
# Go linker reads what it wrote) is mapped around each fault, some 30 MB
# more on this machine than one whose pages each run faults in itself.
measure() {
  local t0 t1
  sync
  dd if="$1" iflag=nocache count=0 status=none
  t0=$(now)
  /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || true
  t1=$(now)
  printf '%.1f s, %d MB' "$(echo "$t1 - $t0" | bc -l)" "$(( $(tail -1 "$work/rss") / 1024 ))"
}

echo "| run | $(for n in "${sizes[@]}"; do printf '%d targets (%d clusters × %d namespaces) | ' $((clusters * n)) "$clusters" "$n"; done)"
echo "|---|$(for _ in "${sizes[@]}"; do printf -- '---|'; done)"
declare -A cell
for n in "${sizes[@]}"; do
  repo=$work/r$n
  go run -tags tools ./tools/gensynth -real -clusters "$clusters" -namespaces "$n" -out "$repo" >/dev/null
  cell[layout.$n]=$(measure "$bin/repotool" layout "$repo")
  bench_hydratable "$repo"
  cell[layoutgit.$n]=$(measure "$bin/repotool" layout "$repo") # Git's index and .gitignore asked now
  cell[hydrate.$n]=$(measure "$bin/repotool" hydrate "$repo" --out "$work/hyd$n" --secrets sops)
  cell[hydrateagain.$n]=$(measure "$bin/repotool" hydrate "$repo" --out "$work/hyd$n" --secrets sops)
  rm -rf "$work/hyd$n"
  # diff of a change to one namespace's common values (its 20 targets).
  sed -i 's/^  team: team-0$/  team: changed/' "$repo/namespaces/ns-0000/common-values-a.yaml"
  if git -C "$repo" diff --quiet; then
    echo "the diff row's change did not apply: gensynth's values changed?" >&2
    exit 1
  fi
  cell[diff.$n]=$(measure "$bin/repotool" diff "$repo" --base HEAD)
  git -C "$repo" checkout -q -- namespaces/ns-0000/common-values-a.yaml
  cell[renderall.$n]=$(measure "$bin/repotool" render "$repo" --all --out-dir "$work/out$n")
  cell[rendercluster.$n]=$(measure "$bin/repotool" render "$repo" --cluster cluster-003)
  cell[lint.$n]=$(measure "$bin/repotool" lint "$repo")
  cell[onepass.$n]=$(measure "$bin/repotool" lint "$repo" --held-targets -1)
  cell[shard.$n]=$(measure "$bin/repotool" lint "$repo" --shard 1/$shards --shard-report "$work/s1.json")
  "$bin/repotool" lint "$repo" --crd-inventory-out "$work/crds.json" >/dev/null 2>&1 || true
  cell[shardinv.$n]=$(measure "$bin/repotool" lint "$repo" --shard 1/$shards --crd-inventory "$work/crds.json" --shard-report "$work/s1i.json")
  go run -tags tools ./tools/gensynth -real -clusters 1 -namespaces "$n" -out "$work/one$n" >/dev/null
  cell[alone.$n]=$(measure "$bin/repotool" lint "$work/one$n")
  rm -rf "$work/one$n" "$work/s1i.json" "$work/crds.json"
  reports=$work/s1.json
  for i in $(seq 2 $shards); do
    "$bin/repotool" lint "$repo" --shard "$i/$shards" --shard-report "$work/s$i.json" >/dev/null 2>&1 || true
    reports+=,$work/s$i.json
  done
  cell[merge.$n]=$(measure "$bin/repotool" lint "$repo" --merge "$reports")
  if ! cmp -s <("$bin/repotool" lint "$repo" -o json 2>/dev/null) <("$bin/repotool" lint "$repo" -o json --merge "$reports" 2>/dev/null); then
    echo "merged shards differ from one run on $n namespaces" >&2
    exit 1
  fi
  rm -rf "$repo" "$work/out$n" "$work"/s*.json
done
row() { printf '| %s |' "$1"; for n in "${sizes[@]}"; do printf ' %s |' "${cell[$2.$n]}"; done; echo; }
row '`layout`' layout
row '`layout` in a Git work tree' layoutgit
row '`hydrate --out --secrets sops`' hydrate
row '`hydrate` again (nothing changed)' hydrateagain
row '`diff --base HEAD`, one namespace'"'"'s common values changed' diff
row '`render --all --out-dir`' renderall
row '`render --cluster cluster-003`' rendercluster
row '`lint` (a cluster at a time above 1,000 targets)' lint
row '`lint --held-targets -1` (one pass)' onepass
row "\`lint --shard 1/$shards --shard-report\`" shard
row "\`lint --shard 1/$shards --crd-inventory\` (the inventory made once)" shardinv
row '`lint` of a repository holding only that shard'"'"'s targets (1 cluster)' alone
row "\`lint --merge\` of the $shards reports" merge
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3); time and peak RSS of one run each"

# Issue 47's ceilings, given two sizes: each command's peak memory at the
# larger within 1.5x of its peak at the smaller (lint in one pass is not
# bounded, by design), and the shard given a CRD inventory within 1.2x of
# a repository holding only its targets. A run over a ceiling fails.
mb() { sed -E 's/.*, ([0-9]+) MB$/\1/' <<<"$1"; }
ceiling() { # label, larger MB, smaller MB, bar
  local r
  r=$(echo "$2 / $3" | bc -l)
  if [ "$(echo "$r <= $4" | bc -l)" = 1 ]; then
    printf '| %s | %.2fx | %sx |\n' "$1" "$r" "$4"
  else
    printf '| %s | %.2fx | %sx, **over** |\n' "$1" "$r" "$4"
    over=1
  fi
}
if [ ${#sizes[@]} -eq 2 ]; then
  small=${sizes[0]} large=${sizes[1]} over=0
  echo
  echo "| ceiling | ratio | bar |"
  echo "|---|---|---|"
  for k in layout layoutgit hydrate hydrateagain diff renderall rendercluster lint; do
    ceiling "$k, $((clusters * large)) against $((clusters * small)) targets" "$(mb "${cell[$k.$large]}")" "$(mb "${cell[$k.$small]}")" 1.5
  done
  ceiling "lint --shard 1/$shards --crd-inventory against its targets alone, $((clusters * large)) targets" \
    "$(mb "${cell[shardinv.$large]}")" "$(mb "${cell[alone.$large]}")" 1.2
  if [ "$over" = 1 ]; then
    echo "bench-scale: a memory ceiling is exceeded" >&2
    exit 1
  fi
fi
