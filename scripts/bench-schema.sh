#!/usr/bin/env bash
# Side-by-side: schema validation by the kubeconform CLI against repotool's
# lint rules (schema validation plus every other rule) on the same rendered
# manifests, with the same schemas and cores. kubeconform is built from the
# version pinned in go.mod. Prints a Markdown table for docs/performance.md.
#
#   scripts/bench-schema.sh [CLUSTERS] [APP_NAMESPACES] [RUNS]   (default 10 18 5: 200 targets)
set -euo pipefail
cd "$(dirname "$0")/.."
clusters=${1:-10} namespaces=${2:-18} runs=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/repotool" ./cmd/repotool
go build -o "$work/kubeconform" github.com/yannh/kubeconform/cmd/kubeconform
export SOPS_AGE_KEY_FILE=$PWD/testdata/age-TEST-ONLY.key HOME=$work/home
mkdir -p "$HOME"
targets=$(go run -tags tools ./tools/gensynth -clusters "$clusters" -namespaces "$namespaces" -out "$work/synth" | awk '{print $2}')

# The manifests (secrets redacted) and the exact schemas repotool uses.
"$work/repotool" render "$work/synth" --all --out-dir "$work/rendered" 2>/dev/null
"$work/repotool" lint "$work/synth" --schema-dir "$work/schemas" >/dev/null
objects=$(cat "$work"/rendered/*/*.yaml | grep -c '^kind:')

# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh # now, median
times=()
for _ in $(seq "$runs"); do
  t0=$(now)
  "$work/kubeconform" -strict -n "$(nproc)" -summary -kubernetes-version 1.33.0 \
    -schema-location "$work/schemas/crd/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" \
    -schema-location "$work/schemas/builtin/v1.33/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    "$work/rendered" > "$work/kubeconform.out"
  t1=$(now)
  times+=("$(echo "$t1 - $t0" | bc)")
done
kc=$(printf '%s\n' "${times[@]}" | median)
summary=$(tail -1 "$work/kubeconform.out")

# repotool: every lint rule (schema validation included) over renderings
# already made, as Go's benchmark measures it.
rules_ns=$(go test ./pkg/lint -run '^$' -bench 'Lint/rules-only' -benchtime "${runs}x" | awk '/rules-only/ {print $3}')
rules=$(echo "$rules_ns / 1000000000" | bc -l)

echo "| $targets targets, $objects objects, $(nproc) cores | time (median of $runs) |"
echo "|---|---|"
printf '| kubeconform CLI: schema validation only (strict, same schemas, -n %d) | %.3f s |\n' "$(nproc)" "$kc"
printf '| repotool: every lint rule, schema validation included (BenchmarkLint/rules-only) | %.3f s |\n' "$rules"
echo
echo "kubeconform: $summary"
