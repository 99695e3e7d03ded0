package manifest

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Object is one Kubernetes object of a manifest stream: a document of a
// rendering, or of a plain manifest file.
type Object struct {
	APIVersion string
	Kind       string
	Name       string
	// Namespace is metadata.namespace as written; "" when the object
	// leaves it to the destination (as Argo CD does).
	Namespace string
	// Template is Helm's "# Source:" path of a rendered object, e.g.
	// "app/charts/common/templates/deployment.yaml"; "" otherwise.
	Template string
	// Source is the repository file the object comes from: the chart
	// template (or the archive and member holding it) of a rendered
	// object; zero when it cannot be told.
	Source
	// Line is the 1-based line of the document's first line in the stream
	// it was read from; Column, when known (repository manifests), the
	// column its top-level mapping starts at.
	Line, Column int
	// YAML is the document, without the separator and the Source comment;
	// nil when the text is held elsewhere (HoldText): read it with Text.
	YAML []byte
	// Content is the parsed document.
	Content map[string]any
	// Node is the document's top-level mapping with the position of every
	// key and value, when the object was read with positions (repository
	// manifests); nil otherwise.
	Node *yaml.Node
	// held loads the text when it is held elsewhere (HoldText).
	held func() ([]byte, error)
}

// Text is the document: YAML, or the text held elsewhere (HoldText),
// loaded again for each call.
func (o *Object) Text() ([]byte, error) {
	if o.YAML != nil || o.held == nil {
		return o.YAML, nil
	}
	return o.held()
}

// HoldText lets go of YAML, leaving load to give the text back when Text
// is called: what keeps many objects for checks that each read a few
// texts at a time (lint, a cluster at a time) holds the texts compressed
// until then. Content, if any, stays.
func (o *Object) HoldText(load func() ([]byte, error)) {
	o.YAML, o.held = nil, load
}

// IsSecret reports whether o is a Kubernetes Secret (core v1).
func (o *Object) IsSecret() bool { return o.Kind == "Secret" && o.APIVersion == "v1" }

// ID is "apiVersion/kind namespace/name" (namespace omitted when empty),
// the way findings name an object.
func (o *Object) ID() string {
	if o.Namespace == "" {
		return o.APIVersion + "/" + o.Kind + " " + o.Name
	}
	return o.APIVersion + "/" + o.Kind + " " + o.Namespace + "/" + o.Name
}

// NamespaceIn is the namespace the object lands in when deployed to
// destination: its own metadata.namespace, or destination when it leaves
// it empty. Pass "" for a cluster-scoped kind, which has none.
func (o *Object) NamespaceIn(destination string) string {
	if destination == "" {
		return ""
	}
	if o.Namespace != "" {
		return o.Namespace
	}
	return destination
}

// Group is the API group of the object's apiVersion, "" for the core API.
func (o *Object) Group() string {
	group, _ := splitAPIVersion(o.APIVersion)
	return group
}

// Version is the version part of the object's apiVersion.
func (o *Object) Version() string {
	_, version := splitAPIVersion(o.APIVersion)
	return version
}

// Key identifies the object without its version: the same object served
// at another apiVersion has the same key.
func (o *Object) Key() Key {
	return Key{Group: o.Group(), Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

func splitAPIVersion(apiVersion string) (group, version string) {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return "", apiVersion
	}
	return group, version
}

// Key identifies an object across revisions: group, kind, namespace and
// name. An apiVersion bump keeps the key, so comparing two revisions shows
// it as a change rather than a removal and an addition.
type Key struct {
	Group, Kind, Namespace, Name string
}

// String is "group/kind namespace/name" ("kind" alone for the core API,
// namespace omitted when empty).
func (k Key) String() string {
	gk := k.Kind
	if k.Group != "" {
		gk = k.Group + "/" + k.Kind
	}
	if k.Namespace == "" {
		return gk + " " + k.Name
	}
	return gk + " " + k.Namespace + "/" + k.Name
}

// Compare orders keys by group, kind, namespace and name.
func (k Key) Compare(o Key) int {
	for _, c := range [][2]string{{k.Group, o.Group}, {k.Kind, o.Kind}, {k.Namespace, o.Namespace}, {k.Name, o.Name}} {
		if c := strings.Compare(c[0], c[1]); c != 0 {
			return c
		}
	}
	return 0
}
