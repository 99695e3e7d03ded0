// Package admission evaluates a cluster's ValidatingAdmissionPolicies
// offline: every object the repository deploys is put to the policies and
// bindings the cluster will have, as the API server's admission plugin puts
// a CREATE request to them.
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
