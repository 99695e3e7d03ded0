// Package admission evaluates a cluster's admission policies offline:
// every object the repository deploys is put to the
// MutatingAdmissionPolicies and ValidatingAdmissionPolicies, and their
// bindings, that the cluster will have, as the API server's admission
// plugins put a CREATE request to them: mutating policies first (Admit:
// what the API server would store, and which policy changed which field),
// then validating ones on the result (Evaluate).
//
// Mutating policies are compiled and applied with k8s.io/apiserver's
// patchers (JSON Patch, and apply configurations merged with server-side
// apply's semantics: typeconverter.go), in the plugin's order of
// invocations and with its second pass for reinvocationPolicy IfNeeded
// (admit.go); policies run in name order, where the API server's order is
// not defined. The mutating parity test holds the admitted objects to the
// plugin itself. They run on a cluster by its version and feature gate
// (1.36 on; 1.32 to 1.35 with the MutatingAdmissionPolicy gate).
//
// The decisions come from Kubernetes' own code (k8s.io/apiserver): the CEL
// environment with its libraries and cost limits, the compilation of a
// policy's variables, match conditions, validations and message
// expressions, the matching of matchConstraints and of a binding's
// matchResources (resource rules with wildcards, excludeResourceRules,
// matchPolicy, namespace and object selectors). The validator that turns
// evaluations into decisions under the policy's failurePolicy (messages,
// message expressions, reasons, audit annotations) is written here
// (validate.go) from the plugin's documented behaviour, so that the
// plugin's package, which links client-go's informers and fake clientset
// into every command's start, is not linked; the oracle and parity tests
// hold it to the plugin. This package
// supplies what the API server would look up: the namespaces with their
// labels, the param objects, the resource name and scope of each kind, and
// the requester (Argo CD's application controller). The parity and oracle
// tests hold the decisions to the admission plugin's own, run in process.
//
// Policies are compiled once per run (Compiler). A built-in kind is decoded
// into its Go type, as the API server decodes it, with the API server's
// defaults for the fields policies read most (replicas, a container's
// imagePullPolicy, a Service's type: defaults.go); other defaults are not
// applied.
//
// The package never prints: the apiserver code it calls logs only at
// verbosity levels klog does not enable by default, and on paths it does
// not take.
//
// Inside: ValidatingAdmissionPolicy offline. `New` decodes a cluster's
// policies and bindings strictly with the API server's defaults (`decode.go`),
// compiles each policy once per Kubernetes version through a `Compiler` shared
// by the clusters of a run (`compile.go`: for evaluation exactly as the
// admission plugin compiles, and a second compilation in the new-expressions
// environment of the cluster's version, whose errors are `Problem`s at the
// expression), and binds them; `Set.Evaluate` puts one object to them as a
// CREATE by Argo CD's application controller (`evaluate.go`):
// k8s.io/apiserver's matcher (`generic.NewPolicyMatcher`; namespaces from an
// in-memory lister, `cluster.go`), the params a paramRef selects among the
// cluster's objects, the plugin's validator, failurePolicy, and the binding's
// validation actions; a built-in kind is decoded into its Go type first, as
// CEL sees it in the API server. `Set.Fields` names the fields a failed
// validation reads, narrowed to the list elements that fail alone
// (`fields.go`), for lint to trace to a values line. `CompileCheck` compiles
// lint.checks in the same environment (`check.go`). CEL from the repository
// runs within a budget for the run (`budget.go`: `Budget`, carried by the
// context, spent by each check's evaluations and by the policies' conditions,
// which are wrapped to get what is left of it; a spent budget stops the
// evaluation, `ErrBudget` and `Decision.BudgetExceeded`). `TestParity` holds
// the decisions to the admission plugin's own (`validating.NewPlugin` over
// fake clients and informers, `oracle_test.go`) on the cases of
// `testdata/parity.yaml`. MutatingAdmissionPolicies (`mutate.go`,
// `mutate_decode.go`, `mutate_set.go`) are decoded and compiled as the
// mutating plugin compiles them, with k8s.io/apiserver's `mutating/patch`
// patchers (JSON Patch; apply configurations merged with server-side apply's
// semantics over client-go's schema of the built-in kinds, or a schema deduced
// from a custom resource: `typeconverter.go`), and run on a cluster by its
// version and feature gate; `Set.Admit` (`admit.go`) applies them as the
// plugin does (invocations by policy, binding and param; match conditions;
// mutations in order, each result decoded strictly and defaulted;
// failurePolicy; the second pass of reinvocationPolicy IfNeeded; policies in
// name order, where the API server's is not defined), records which fields
// each policy changed (`Mutation`, from `jsonptr.EachChange`), and then puts
// the admitted object to the validating policies. `TestMutatingParity` holds
// the admitted objects and denials to the mutating plugin itself
// (`mutating.NewPlugin` behind the admission chain's reinvocation handler, its
// apply schemas the API server's own OpenAPI documents:
// `mutate_oracle_test.go`) on `testdata/mutating-parity.yaml`, which follows
// the Kubernetes documentation's examples.
package admission
