#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# The cost of the admission-policy rule: lint on the 2,000 real-chart
# targets of bench-real.sh (200 clusters x 10 namespaces), without
# policies and with 20 ValidatingAdmissionPolicies bound in every cluster
# (clusters.<c>.admissionPolicies naming one folder of policies, bindings
# and their param ConfigMap), twice: as written, where many fail on the
# charts (a first run, findings and their values-line tracing included),
# and with every validation written "(expression) || true", which
# evaluates the same expressions and passes (a repository that complies).
# Prints a Markdown table for docs/performance.md.
#
#   scripts/bench-admission.sh [RUNS]    (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh
bench_setup
(cd internal/corpus && GOTOOLCHAIN=auto go mod download)
go run -tags tools ./tools/gensynth -real -clusters 200 -namespaces 10 -out "$work/plain" >/dev/null
cp -r "$work/plain" "$work/policies"

# policy NAME RESOURCES GROUP EXPRESSION [PARAM]: one policy and its
# binding (Deny, or Warn for every third), the expression true when the
# object passes.
count=0
policy() {
  local name=$1 resources=$2 group=$3 expression=$4 param=${5:-}
  local action=Deny
  count=$((count + 1))
  if ((count % 3 == 0)); then action=Warn; fi
  cat <<YAML
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: $name}
spec:
$(if [[ -n $param ]]; then echo "  paramKind: {apiVersion: v1, kind: ConfigMap}"; fi)
  matchConstraints:
    resourceRules:
      - {apiGroups: ["$group"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: ["${resources//, /\", \"}"]}
  validations:
    - expression: "$expression"
      message: $name
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: $name}
spec:
  policyName: $name
  validationActions: [$action]
$(if [[ -n $param ]]; then echo "  paramRef: {name: limits, namespace: kube-system, parameterNotFoundAction: Deny}"; fi)
YAML
}
mkdir -p "$work/policies/policies"
: >"$work/policies/policies/all.yaml"
containers='object.spec.template.spec.containers'
{
  policy replicas deployments apps "!has(object.spec.replicas) || object.spec.replicas <= int(params.data.maxReplicas)" param
  policy no-latest 'deployments, statefulsets, daemonsets' apps "$containers.all(c, !c.image.endsWith(':latest'))"
  policy registry 'deployments, statefulsets, daemonsets' apps "$containers.all(c, c.image.contains('/'))"
  policy memory-limit deployments apps "$containers.all(c, !has(c.resources) || !has(c.resources.limits) || !('memory' in c.resources.limits) || quantity(c.resources.limits.memory).compareTo(quantity(params.data.maxMemory)) <= 0)" param
  policy no-privileged 'deployments, daemonsets' apps "$containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)"
  policy no-host-network 'deployments, daemonsets' apps "!has(object.spec.template.spec.hostNetwork) || !object.spec.template.spec.hostNetwork"
  policy probes deployments apps "$containers.all(c, has(c.livenessProbe) || has(c.readinessProbe))"
  policy team-label '*' '*' "has(object.metadata.labels) && 'team' in object.metadata.labels"
  policy name-length '*' '*' "size(object.metadata.name) <= 63"
  policy name-format '*' '*' "object.metadata.name.matches('^[a-z0-9.-]+$')"
  policy service-type services '' "!has(object.spec.type) || object.spec.type != 'LoadBalancer'"
  policy service-ports services '' "!has(object.spec.ports) || object.spec.ports.all(p, p.port > 0 && p.port < 65536)"
  policy configmap-size configmaps '' "!has(object.data) || size(object.data) <= 50"
  policy secret-type secrets '' "!has(object.type) || object.type != 'kubernetes.io/basic-auth'"
  policy ingress-tls ingresses networking.k8s.io "!has(object.spec.rules) || object.spec.rules.all(r, has(r.host))"
  policy rbac-wildcards 'clusterroles, roles' rbac.authorization.k8s.io "!has(object.rules) || object.rules.all(r, !('*' in r.verbs))"
  policy webhook-timeouts validatingwebhookconfigurations admissionregistration.k8s.io "object.webhooks.all(w, !has(w.timeoutSeconds) || w.timeoutSeconds <= 15)"
  policy crd-versions customresourcedefinitions apiextensions.k8s.io "object.spec.versions.exists(v, v.storage)"
  policy sa-automount serviceaccounts '' "!has(object.automountServiceAccountToken) || object.automountServiceAccountToken || true"
  policy jobs-ttl jobs batch "has(object.spec.ttlSecondsAfterFinished)"
} >>"$work/policies/policies/all.yaml"
cat >>"$work/policies/policies/all.yaml" <<'YAML'
---
apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: kube-system}
data: {maxReplicas: "5", maxMemory: 4Gi}
YAML
bound=$(grep -c '^kind: ValidatingAdmissionPolicyBinding' "$work/policies/policies/all.yaml")
{
  echo "clusters:"
  for c in "$work"/policies/clusters/*/; do
    printf '  %s:\n    admissionPolicies: [policies]\n' "$(basename "$c")"
  done
} >>"$work/policies/repotool.yaml"

cp -r "$work/policies" "$work/passing"
sed -i 's/^    - expression: "\(.*\)"$/    - expression: "(\1) || true"/' "$work/passing/policies/all.yaml"

plain_times=() policy_times=() passing_times=()
for _ in $(seq "$runs"); do
  plain_times+=("$(elapsed "$bin/repotool" lint "$work/plain")")
  passing_times+=("$(elapsed "$bin/repotool" lint "$work/passing")")
  policy_times+=("$(elapsed "$bin/repotool" lint "$work/policies")")
done
plain=$(printf '%s\n' "${plain_times[@]}" | median)
passing=$(printf '%s\n' "${passing_times[@]}" | median)
with=$(printf '%s\n' "${policy_times[@]}" | median)
count() { { "$bin/repotool" lint "$1" -o json || true; } | jq '[.findings[] | select(.rule == "admission-policy")] | length'; }

echo "| figure | measured (median of $runs runs) | goal |"
echo "|---|---|---|"
printf '| lint, 2,000 real-chart targets: without policies, and with %d bound policies in each of 200 clusters that every object passes | without: %.1f s; with: %.1f s (%d admission-policy findings); **%.2fx** | 1.3x |\n' "$bound" "$plain" "$passing" "$(count "$work/passing")" "$(echo "$passing / $plain" | bc -l)"
printf '| the same, the policies as written (many fail: a first run) | with: %.1f s (%d admission-policy findings); **%.2fx** | |\n' "$with" "$(count "$work/policies")" "$(echo "$with / $plain" | bc -l)"
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3)"
