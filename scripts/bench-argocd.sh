#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# Argo CD at monorepo scale, side by side in one run on the same machine
# and cores (real community charts from the Go modules internal/corpus
# pins; helm built from the version in go.mod). Prints Markdown tables for
# docs/performance.md.
#
#   scripts/bench-argocd.sh [RUNS]    (default 5)
#
# P2: one target of 2,000 as Argo CD's plugin runs it (`render --argocd`,
#     process start included) against one `helm template` of the same
#     chart with the same values (secret values decrypted beforehand, not
#     timed): the ratio.
# diff: a one-file change (one cluster values file) on 200 targets,
#     `diff --base HEAD` against `render --all` of the same repository.
# refresh: how many Applications that commit refreshes, before the
#     manifest-generate-paths annotation (every one) and after.
# tarball: what the repo-server sends the plugin for each render, with
#     and without the tar exclusions `generate plugin` prints (Argo CD's own
#     tarball code: internal/argocdcheck/tarsize), repository in Git.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
(cd internal/corpus && GOTOOLCHAIN=auto go mod download)
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
commit() { git -C "$1" init -q && git -C "$1" add -A && git -C "$1" commit -qm base; }

go run -tags tools ./tools/gensynth -real -clusters 200 -namespaces 10 -out "$work/r2000" >/dev/null
go run -tags tools ./tools/gensynth -real -clusters 20 -namespaces 10 -out "$work/r200" >/dev/null
for r in r2000 r200; do printf 'git:\n  repoURL: https://example.com/gitops.git\n' >> "$work/$r/repotool.yaml"; done
mkdir -p "$work/r2000/docs" "$work/r2000/.github/workflows"
echo "# runbooks" > "$work/r2000/docs/README.md"
echo "on: push" > "$work/r2000/.github/workflows/ci.yaml"
for r in r2000 r200; do "$bin/repotool" generate "$work/$r" >/dev/null; done
commit "$work/r2000"
commit "$work/r200"

p2_setup "$work/r2000"
if ! cmp -s <(p2_plugin repotool) <(helm_one); then echo "render --argocd and helm template disagree on $c/$ns" >&2; exit 1; fi
p2_new=() p2_helm=()
for _ in $(seq "$runs"); do
  p2_new+=("$(elapsed p2_plugin repotool)")
  p2_helm+=("$(elapsed helm_one)")
done
new=$(printf '%s\n' "${p2_new[@]}" | median)
helm=$(printf '%s\n' "${p2_helm[@]}" | median)
init=$(cd "$tdir" && GODEBUG=inittrace=1 "$bin/repotool" version 2>&1 >/dev/null | awk '/^init / {n++; t+=$5} END {printf "%d packages, %.0f ms", n, t}')

# diff: one cluster values file of 200 targets.
echo "# a comment" >> "$work/r200/clusters/cluster-003/ns-0004/dev-values-a.yaml"
affected=$("$bin/repotool" diff "$work/r200" --base HEAD -o json | jq '.targets | length')
total=$(find "$work/r200/clusters" -mindepth 2 -maxdepth 2 -type d | wc -l)
# Applications: every one without the annotation; with it, those whose
# paths hold the changed file (its target folder).
apps_all=$(find "$work/r200/argocd" -name 'application-*.yaml' | wc -l)
apps_hit=$(grep -lE 'manifest-generate-paths: .*/clusters/cluster-003/ns-0004(;|$)' "$work"/r200/argocd/*/application-*.yaml | wc -l)
diff_t=() all_t=()
for _ in $(seq "$runs"); do
  diff_t+=("$(elapsed "$bin/repotool" diff "$work/r200" --base HEAD)")
  all_t+=("$(elapsed "$bin/repotool" render "$work/r200" --all)")
done
d=$(printf '%s\n' "${diff_t[@]}" | median)
a=$(printf '%s\n' "${all_t[@]}" | median)

# tarball
excl=$("$bin/repotool" generate plugin "$work/r2000" | awk '/reposerver.plugin.tar.exclusions:/ {print $2}')
tar_out=$(cd internal/argocdcheck && go run ./tarsize "$work/r2000" "$excl")
tar_all=$(echo "$tar_out" | sed -n 1p) tar_excl=$(echo "$tar_out" | sed -n 2p)
apps=$(grep -l "manifest-generate-paths" "$work"/r2000/argocd/*/application-*.yaml | wc -l)

echo "| goal (median of $runs runs) | measured | target |"
echo "|---|---|---|"
printf '| P2: one target of 2,000 (`render --argocd`, process start included) against one `helm template` of the same chart | %.0f ms against %.0f ms: **%.2fx** | 1.0x (moonshot 0.5x) |\n' \
  "$(echo "$new * 1000" | bc -l)" "$(echo "$helm * 1000" | bc -l)" "$(echo "$new / $helm" | bc -l)"
printf '| diff of a one-file change, 200 targets, against `render --all` | %.2f s against %.2f s: **%.2fx** (%d of %d targets affected) | 0.3x |\n' \
  "$d" "$a" "$(echo "$d / $a" | bc -l)" "$affected" "$total"
printf '| Applications that commit refreshes | before: all %d (a new commit invalidates every cache); after: %d | |\n' "$apps_all" "$apps_hit"
printf '| plugin tarball, 2,000 targets in Git (%d Applications annotated) | %s; with `%s`: %s | |\n' "$apps" "${tar_all#*\" }" "$excl" "${tar_excl#*\" }"
echo
echo "repotool start-up: $init of package initialisation"
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3), helm $("$bin/helm" version --template '{{.Version}}')"
