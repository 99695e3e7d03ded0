#!/usr/bin/env bash
# Side-by-side: `repotool render --all` against the shell wrapper our users
# run today (per target: helm dependency build, sops -d onto disk, helm
# template), on the same synthetic monorepo, machine and cores. helm and sops
# are built from the module versions in go.mod. Prints a Markdown table for
# docs/performance.md.
#
#   scripts/bench-render.sh [CLUSTERS] [APP_NAMESPACES] [RUNS]    (default 10 18 3: 200 targets)
#
# Needs Go and python3 (a local chart repository for helm dependency build).
set -euo pipefail
cd "$(dirname "$0")/.."
clusters=${1:-10} namespaces=${2:-18} runs=${3:-3}
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup

# A local chart repository serving the vendored redis chart, so the old way's
# `helm dependency build` can fetch it (from loopback: the old way's best case).
mkdir -p "$work/chartrepo/stable"
cp testdata/monorepo/namespaces/namespace-b/charts/redis-7.2.4.tgz "$work/chartrepo/stable/"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/helm" repo index "$work/chartrepo/stable" --url "http://127.0.0.1:$port/stable"
(cd "$work/chartrepo" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
sleep 1
"$bin/helm" repo add stable "http://127.0.0.1:$port/stable" >/dev/null

targets=$(go run -tags tools ./tools/gensynth -clusters "$clusters" -namespaces "$namespaces" -out "$work/synth" | awk '{print $2}')
grep -rl 'https://charts.example.com/stable' "$work/synth/namespaces" | xargs sed -i "s#https://charts.example.com/stable#http://127.0.0.1:$port/stable#"

old_way() { old_render_loop "$1" "$2" dep-build; } # $1 = a fresh copy of the repository, $2 = output folder

old_times=() new_times=()
for _ in $(seq "$runs"); do
  rm -rf "$work/old" "$work/out-old"; cp -r "$work/synth" "$work/old"
  t0=$(now); old_way "$work/old" "$work/out-old"; t1=$(now)
  old_times+=("$(echo "$t1 - $t0" | bc)")
  rm -rf "$work/out-new" "$work/cache"
  t0=$(now); "$bin/repotool" render "$work/synth" --all --out-dir "$work/out-new" --cache-dir "$work/cache" 2>/dev/null; t1=$(now)
  new_times+=("$(echo "$t1 - $t0" | bc)")
done
old=$(printf '%s\n' "${old_times[@]}" | median)
new=$(printf '%s\n' "${new_times[@]}" | median)

# One target, process start included, on a repository ten times larger.
big=$(go run -tags tools ./tools/gensynth -clusters $((clusters * 2)) -namespaces $((namespaces * 5)) -out "$work/big" | awk '{print $2}')
single_times=()
for _ in $(seq 5); do
  t0=$(now); "$bin/repotool" render "$work/big" -c cluster-000 -n ns-0000 --offline >/dev/null; t1=$(now)
  single_times+=("$(echo "$t1 - $t0" | bc)")
done
single=$(printf '%s\n' "${single_times[@]}" | median)

echo "| scenario | old way (helm + sops CLIs) | repotool | speed-up |"
echo "|---|---|---|---|"
printf '| %d targets (%d clusters x %d application + 2 platform namespaces), median of %d runs | %.1f s | %.2f s | %.0fx |\n' "$targets" "$clusters" "$namespaces" "$runs" "$old" "$new" "$(echo "$old / $new" | bc -l)"
printf '| one target of %d, process start included (median of 5) | | %.0f ms | |\n' "$big" "$(echo "$single * 1000" | bc -l)"
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3), helm $("$bin/helm" version --template '{{.Version}}')"
