#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# hydrate against render --all --out-dir on the 2,000 real-chart targets of
# scripts/bench-real.sh (200 clusters x 10 namespaces of cert-manager,
# External Secrets Operator and ingress-nginx, SOPS layers in most), and a
# one-file --changed-since hydration against a full one. hydrate runs with
# --secrets sops (the charts render Secrets), for a .sops.yaml rule the
# script adds for the hydrated manifests, so every Secret is encrypted.
# Prints a Markdown table for docs/performance.md.
#
#   scripts/bench-hydrate.sh [RUNS]    (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
(cd internal/corpus && GOTOOLCHAIN=auto go mod download)

repo=$work/r2000
go run -tags tools ./tools/gensynth -real -clusters 200 -namespaces 10 -out "$repo" >/dev/null
bench_hydratable "$repo"

render_times=() hydrate_times=()
for _ in $(seq "$runs"); do
  rm -rf "$work/rendered" "$work/hydrated"
  render_times+=("$(elapsed "$bin/repotool" render "$repo" --all --out-dir "$work/rendered")")
  hydrate_times+=("$(elapsed "$bin/repotool" hydrate "$repo" --out "$work/hydrated" --secrets sops)")
done
render=$(printf '%s\n' "${render_times[@]}" | median)
full=$(printf '%s\n' "${hydrate_times[@]}" | median)
again=$(elapsed "$bin/repotool" hydrate "$repo" --out "$work/hydrated" --secrets sops)

# One values file of one cluster changes.
file=$(find "$repo/clusters" -name '*values*.yaml' ! -name '*.secret.yaml' | sort | sed -n 1p)
echo "# touched by bench-hydrate.sh" >> "$file"
git -C "$repo" -c user.name=bench -c user.email=bench@example.com commit -qam "one file"
changed_times=()
for _ in $(seq "$runs"); do
  changed_times+=("$(elapsed "$bin/repotool" hydrate "$repo" --out "$work/hydrated" --secrets sops --changed-since HEAD~1)")
done
changed=$(printf '%s\n' "${changed_times[@]}" | median)

# The same with --secrets sealed-secrets: one controller certificate,
# committed in every cluster's folder.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/sealed.key" -out "$work/sealed.pem" -days 2 -subj /CN=sealed-secrets 2>/dev/null
for c in "$repo"/clusters/*/; do cp "$work/sealed.pem" "$c/sealed-secrets.pem"; done
git -C "$repo" add -A
git -C "$repo" -c user.name=bench -c user.email=bench@example.com commit -qm "sealed-secrets certificates"
sealed_times=()
for _ in $(seq "$runs"); do
  rm -rf "$work/sealed"
  sealed_times+=("$(elapsed "$bin/repotool" hydrate "$repo" --out "$work/sealed" --secrets sealed-secrets)")
done
sealed=$(printf '%s\n' "${sealed_times[@]}" | median)
sealed_again=$(elapsed "$bin/repotool" hydrate "$repo" --out "$work/sealed" --secrets sealed-secrets)

echo "| figure | measured (median of $runs runs) | goal |"
echo "|---|---|---|"
printf '| hydrate --out, 2,000 targets, fresh, Secrets SOPS-encrypted | `render --all --out-dir`: %.1f s; `hydrate`: %.1f s; **%.2fx** | 1.3x |\n' "$render" "$full" "$(echo "$full / $render" | bc -l)"
printf '| hydrate again, nothing changed (ciphertext kept: decrypted and compared) | %.1f s | |\n' "$again"
printf '| one values file changed, `--changed-since HEAD~1` against a full hydration | %.2f s; **%.2fx** | 0.3x |\n' "$changed" "$(echo "$changed / $full" | bc -l)"
printf '| hydrate --out, fresh, Secrets sealed (sealed-secrets) | %.1f s; **%.2fx** `render --all --out-dir` | 1.3x |\n' "$sealed" "$(echo "$sealed / $render" | bc -l)"
printf '| hydrate again, nothing changed (SealedSecrets kept by their keyed digest) | %.1f s | |\n' "$sealed_again"
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3)"
