#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# Performance on real community charts (cert-manager, external-secrets,
# ingress-nginx, from the Go modules internal/corpus pins; see its
# SOURCES.md), side by side with the loop users ran before repotool, on the
# same machine and cores. Prints Markdown tables for docs/performance.md.
#
#   scripts/bench-real.sh [RUNS]    (default 3)
#
# P1: render --all on 200 targets (20 clusters x 10 namespaces, SOPS layers
#     in most ingress-nginx and external-secrets targets) against the loop
#     (sops -d, then helm template per target; charts vendored, no helm
#     dependency build: the loop's best case).
# P2: one target of 2,000, process start included, as Argo CD's plugin runs
#     it (render --argocd).
# P4: peak RSS of render --all on 2,000 targets.
# lint against render --all on the same 2,000 targets.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
(cd internal/corpus && GOTOOLCHAIN=auto go mod download)
rss() { { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -1; } # peak KB

go run -tags tools ./tools/gensynth -real -clusters 20 -namespaces 10 -out "$work/r200" >/dev/null
go run -tags tools ./tools/gensynth -real -clusters 200 -namespaces 10 -out "$work/r2000" >/dev/null

old_times=() new_times=()
for _ in $(seq "$runs"); do
  rm -rf "$work/out-old"
  old_times+=("$(elapsed old_render_loop "$work/r200" "$work/out-old")")
  new_times+=("$(elapsed "$bin/repotool" render "$work/r200" --all)")
done
old=$(printf '%s\n' "${old_times[@]}" | median)
new=$(printf '%s\n' "${new_times[@]}" | median)

plugin() { # one target of the 2,000, as Argo CD's plugin runs it
  (cd "$work/r2000/clusters/cluster-107/ns-0004" && ARGOCD_APP_NAMESPACE=ns-0004 ARGOCD_APP_SOURCE_PATH=clusters/cluster-107/ns-0004 \
    ARGOCD_ENV_CLUSTER=cluster-107 ARGOCD_ENV_NAMESPACE=ns-0004 REPOTOOL_CLUSTER=cluster-107 "$bin/repotool" render --argocd)
}
single_times=()
for _ in $(seq 5); do single_times+=("$(elapsed plugin)"); done
single=$(printf '%s\n' "${single_times[@]}" | median)

all_times=() lint_times=()
for _ in $(seq "$runs"); do
  all_times+=("$(elapsed "$bin/repotool" render "$work/r2000" --all)")
  lint_times+=("$(elapsed "$bin/repotool" lint "$work/r2000")")
done
all=$(printf '%s\n' "${all_times[@]}" | median)
lint=$(printf '%s\n' "${lint_times[@]}" | median)
rss_out=$(rss "$bin/repotool" render "$work/r2000" --all --out-dir "$work/out-2000")
rss_stdout=$(rss "$bin/repotool" render "$work/r2000" --all)
rss_lint=$(rss "$bin/repotool" lint "$work/r2000")

echo "| goal | measured (median of $runs runs; one target: of 5) | target |"
echo "|---|---|---|"
printf '| P1: render --all, 200 real-chart targets | loop (sops -d + helm template): %.1f s; `render --all`: %.2f s; **%.1fx** | 15x |\n' "$old" "$new" "$(echo "$old / $new" | bc -l)"
printf '| P2: one target of 2,000, process start included (`render --argocd`) | %.0f ms | 200 ms |\n' "$(echo "$single * 1000" | bc -l)"
printf '| P4: peak RSS, render --all on 2,000 targets | `--out-dir`: %d MB; standard output: %d MB | 300 MB |\n' "$((rss_out / 1024))" "$((rss_stdout / 1024))"
printf '| lint against render --all, 2,000 targets | `render --all`: %.1f s; `lint`: %.1f s (%d MB); **%.2fx** | 1.3x |\n' "$all" "$lint" "$((rss_lint / 1024))" "$(echo "$lint / $all" | bc -l)"
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3), helm $("$bin/helm" version --template '{{.Version}}')"
