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
package admission
