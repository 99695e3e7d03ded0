#!/usr/bin/env bash
# shellcheck disable=SC2016 # the backticks in the Markdown tables are literal
# The cost of the admission-policy rule: lint on the 2,000 real-chart
# targets of bench-real.sh (200 clusters x 10 namespaces), without
# policies and with 20 ValidatingAdmissionPolicies bound in every cluster
# (clusters.<c>.admissionPolicies naming one folder of policies, bindings
# and their param ConfigMap), twice: as written, where many fail on the
# charts (a first run, findings and their values-line tracing included),
# and with every validation written "(expression) || true", which
# evaluates the same expressions and passes (a repository that complies);
# and that compliant repository with 20 MutatingAdmissionPolicies bound in
# every cluster besides (its clusters run Kubernetes 1.36), which change
# most objects on their way in (labels and annotations on every kind,
# image pull policy, security context, limits and defaults on workloads,
# Services, Jobs, Ingresses, RBAC): the validating policies then see the
# admitted objects, and admission-drift compares them with the rendered
# ones. Prints a Markdown table for docs/performance.md.
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

# mutating NAME RESOURCES GROUP TYPE EXPRESSION [CONDITION]: one mutating
# policy (TYPE ApplyConfiguration or JSONPatch) and its binding; those
# whose names are in $reinvoked run again when a later policy changes the
# object (reinvocationPolicy IfNeeded), the others once (Never, the
# default).
reinvoked=" pull-always pull-always-sts non-root memory-limit "
mutating() {
  local name=$1 resources=$2 group=$3 type=$4 expression=$5 condition=${6:-}
  local field=applyConfiguration reinvocation=Never
  if [[ $reinvoked == *" $name "* ]]; then reinvocation=IfNeeded; fi
  if [[ $type == JSONPatch ]]; then field=jsonPatch; fi
  cat <<YAML
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: $name}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: ["$group"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: ["${resources//, /\", \"}"]}
$(if [[ -n $condition ]]; then printf '  matchConditions:\n    - name: needed\n      expression: >-\n        %s\n' "$condition"; fi)
  reinvocationPolicy: $reinvocation
  mutations:
    - patchType: $type
      $field:
        expression: >-
          $expression
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: $name}
spec:
  policyName: $name
YAML
}
cp -r "$work/passing" "$work/mutating"
tmpl='Object.spec.template'
pod="$tmpl.spec"
{
  mutating cost-center '*' '*' ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"cost-center": "platform"}}}'
  mutating admitted-by '*' '*' ApplyConfiguration 'Object{metadata: Object.metadata{annotations: {"policy.example.com/admitted": "true"}}}'
  mutating pull-always deployments apps ApplyConfiguration "Object{spec: Object.spec{template: $tmpl{spec: $pod{containers: object.spec.template.spec.containers.map(c, $pod.containers{name: c.name, imagePullPolicy: \"Always\"})}}}}"
  mutating pull-always-sts statefulsets apps ApplyConfiguration "Object{spec: Object.spec{template: $tmpl{spec: $pod{containers: object.spec.template.spec.containers.map(c, $pod.containers{name: c.name, imagePullPolicy: \"Always\"})}}}}"
  mutating non-root 'deployments, statefulsets, daemonsets' apps ApplyConfiguration "Object{spec: Object.spec{template: $tmpl{spec: $pod{securityContext: $pod.securityContext{runAsNonRoot: true}}}}}"
  mutating memory-limit deployments apps ApplyConfiguration "Object{spec: Object.spec{template: $tmpl{spec: $pod{containers: object.spec.template.spec.containers.filter(c, !has(c.resources) || !has(c.resources.limits)).map(c, $pod.containers{name: c.name, resources: $pod.containers.resources{limits: {\"memory\": \"512Mi\"}}})}}}}"
  mutating no-sidecar deployments apps ApplyConfiguration "Object{spec: Object.spec{template: $tmpl{metadata: $tmpl.metadata{annotations: {\"sidecar.example.com/inject\": \"false\"}}}}}"
  mutating history deployments apps ApplyConfiguration 'Object{spec: Object.spec{revisionHistoryLimit: 5}}'
  mutating progress deployments apps JSONPatch '[JSONPatch{op: "add", path: "/spec/progressDeadlineSeconds", value: 600}]'
  mutating sa-automount serviceaccounts '' ApplyConfiguration 'Object{automountServiceAccountToken: false}'
  mutating service-checked services '' ApplyConfiguration 'Object{metadata: Object.metadata{annotations: {"service.example.com/checked": "true"}}}'
  mutating config-label configmaps '' JSONPatch '[JSONPatch{op: "add", path: "/metadata/labels", value: {"config": "true"}}]' '!has(object.metadata.labels)'
  mutating secret-label secrets '' ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"secret": "true"}}}'
  mutating job-ttl jobs batch ApplyConfiguration 'Object{spec: Object.spec{ttlSecondsAfterFinished: 3600}}' '!has(object.spec.ttlSecondsAfterFinished)'
  mutating ingress-class ingresses networking.k8s.io ApplyConfiguration 'Object{spec: Object.spec{ingressClassName: "nginx"}}' '!has(object.spec.ingressClassName)'
  mutating hpa-label horizontalpodautoscalers autoscaling ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"scaled": "true"}}}'
  mutating netpol-label networkpolicies networking.k8s.io ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"network": "true"}}}'
  mutating rbac-label 'roles, rolebindings, clusterroles, clusterrolebindings' rbac.authorization.k8s.io ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"rbac": "true"}}}'
  mutating pdb-label poddisruptionbudgets policy ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"budget": "true"}}}'
  mutating crd-label customresourcedefinitions apiextensions.k8s.io ApplyConfiguration 'Object{metadata: Object.metadata{labels: {"crd": "true"}}}'
} >"$work/mutating/policies/mutating.yaml"
mutating_bound=$(grep -c '^kind: MutatingAdmissionPolicyBinding' "$work/mutating/policies/mutating.yaml")
sed -i 's/^\(  [a-z0-9-]*:\)$/\1\n    kubeVersion: v1.36.0/' "$work/mutating/repotool.yaml"
# The same, its Applications compared server-side (argocd.serverSideDiff):
# the policies run, but no field they change is drift.
cp -r "$work/mutating" "$work/serverside"
printf 'argocd:\n  serverSideDiff: true\n' >>"$work/serverside/repotool.yaml"

plain_times=() policy_times=() passing_times=() mutating_times=() serverside_times=()
for _ in $(seq "$runs"); do
  plain_times+=("$(elapsed "$bin/repotool" lint "$work/plain")")
  passing_times+=("$(elapsed "$bin/repotool" lint "$work/passing")")
  policy_times+=("$(elapsed "$bin/repotool" lint "$work/policies")")
  mutating_times+=("$(elapsed "$bin/repotool" lint "$work/mutating")")
  serverside_times+=("$(elapsed "$bin/repotool" lint "$work/serverside")")
done
plain=$(printf '%s\n' "${plain_times[@]}" | median)
passing=$(printf '%s\n' "${passing_times[@]}" | median)
with=$(printf '%s\n' "${policy_times[@]}" | median)
mutated=$(printf '%s\n' "${mutating_times[@]}" | median)
serverside=$(printf '%s\n' "${serverside_times[@]}" | median)
count() { { "$bin/repotool" lint "$1" -o json || true; } | jq "[.findings[] | select(.rule == \"${2:-admission-policy}\")] | length"; }

echo "| figure | measured (median of $runs runs) | goal |"
echo "|---|---|---|"
printf '| lint, 2,000 real-chart targets: without policies, and with %d bound policies in each of 200 clusters that every object passes | without: %.1f s; with: %.1f s (%d admission-policy findings); **%.2fx** | 1.3x |\n' "$bound" "$plain" "$passing" "$(count "$work/passing")" "$(echo "$passing / $plain" | bc -l)"
printf '| the same, the policies as written (many fail: a first run) | with: %.1f s (%d admission-policy findings); **%.2fx** | |\n' "$with" "$(count "$work/policies")" "$(echo "$with / $plain" | bc -l)"
printf '| the passing policies and %d bound mutating policies in each cluster (Kubernetes 1.36), the drift they cause reported (a first run) | with: %.1f s (%d admission-policy, %d admission-drift findings); **%.2fx** | |\n' "$mutating_bound" "$mutated" "$(count "$work/mutating")" "$(count "$work/mutating" admission-drift)" "$(echo "$mutated / $plain" | bc -l)"
printf '| the same, the Applications compared server-side (argocd.serverSideDiff: no drift) | with: %.1f s (%d admission-policy, %d admission-drift findings); **%.2fx** | 1.3x |\n' "$serverside" "$(count "$work/serverside")" "$(count "$work/serverside" admission-drift)" "$(echo "$serverside / $plain" | bc -l)"
echo
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3)"
