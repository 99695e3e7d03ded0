package admission

import (
	"context"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Cluster is what the API server would look up while admitting an object:
// the namespaces with their labels, and the objects a binding's paramRef
// may name.
type Cluster struct {
	// Namespaces are the cluster's namespaces and their labels. Every
	// namespace an evaluated object lands in must be here.
	Namespaces map[string]map[string]string
	// Objects are the cluster's objects params are looked up among.
	Objects []Input

	namespaces listersv1.NamespaceLister
	params     map[schema.GroupVersionKind][]param
}

// param is an object a paramRef may select.
type param struct {
	obj *unstructured.Unstructured
	ref any
}

// index builds the namespace lister and the params by kind, once.
func (c *Cluster) index() {
	if c.params != nil {
		return
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, labels := range c.Namespaces {
		_ = idx.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	}
	c.namespaces = listersv1.NewNamespaceLister(idx)
	c.params = map[schema.GroupVersionKind][]param{}
	for _, o := range c.Objects {
		u := &unstructured.Unstructured{Object: o.Content}
		gvk := u.GroupVersionKind()
		c.params[gvk] = append(c.params[gvk], param{u, o.Ref})
	}
	for _, ps := range c.params {
		slices.SortStableFunc(ps, func(a, b param) int {
			return strings.Compare(a.obj.GetNamespace()+"/"+a.obj.GetName(), b.obj.GetNamespace()+"/"+b.obj.GetName())
		})
	}
}

// noNamespaces is the client the namespace matcher falls back to when its
// lister does not know a namespace: offline there is nothing more to ask,
// so the answer is the API server's NotFound.
type noNamespaces struct{ kubernetes.Interface }

func (noNamespaces) CoreV1() typedcorev1.CoreV1Interface { return coreV1{} }

type coreV1 struct{ typedcorev1.CoreV1Interface }

func (coreV1) Namespaces() typedcorev1.NamespaceInterface { return namespaceGetter{} }

type namespaceGetter struct{ typedcorev1.NamespaceInterface }

func (namespaceGetter) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
}
