package admission

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
)

// An ApplyConfiguration mutation is merged with server-side apply's
// semantics, which need the object's schema: which lists are sets or maps
// keyed by a field, which structs are atomic. The API server reads it from
// its OpenAPI; offline, a built-in kind's is client-go's (the schema its
// apply configurations are generated from), and a custom resource's is
// deduced from the object itself (maps merge, lists are atomic, as in a
// CRD whose schema sets no x-kubernetes-list-type).

var (
	builtinConverter = sync.OnceValue(func() managedfields.TypeConverter {
		return applyconfigurations.NewTypeConverter(kubescheme.Scheme)
	})
	deducedConverter = sync.OnceValue(managedfields.NewDeducedTypeConverter)
)

// typeConverterFor is the schema an apply configuration on kind gvk merges
// with.
func typeConverterFor(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	if kubescheme.Scheme.Recognizes(gvk) {
		return builtinConverter()
	}
	return deducedConverter()
}
