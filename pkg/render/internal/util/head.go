// Package util holds the type Helm 4's sort decodes the head of a rendered
// document into. Decoding errors name a Go type ("json: cannot unmarshal
// string into Go value of type util.SimpleHead"), and Helm 4 prints them:
// to print the same message, repotool decodes into a type of the same
// name, in a package of the same name. It is declared here, with the
// shape Helm documents (apiVersion, kind, metadata.name,
// metadata.annotations), rather than linking Helm 4's release packages.
package util

// SimpleHead is what Helm 4's sort reads of a rendered document.
type SimpleHead struct {
	Version  string `json:"apiVersion"`
	Kind     string `json:"kind,omitempty"`
	Metadata *struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata,omitempty"`
}
