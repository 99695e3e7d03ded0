package lint

import (
	"bytes"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// Lint keeps every target's rendering until the checks across targets have
// run. Parsed content is most of that memory, and while the rest of the
// repository renders the garbage collector marks it again at every cycle:
// on 2,000 real-chart targets a fifth of the run. So as each rendering
// arrives, Lint keeps the parsed content only of the kinds the
// cross-object rules read (Secrets, Namespaces, ServiceAccounts, Ingresses,
// and the External Secrets, cert-manager and SecretMirror objects that
// make Secrets) and, for the others, the facts those rules need (the
// Secrets an object refers to, a Job's words); their YAML stays.
// contentOf parses an object's YAML again when its content was not kept,
// so a rule that reads another kind's content is slower, never wrong.

// compacted are the facts of the objects whose parsed content Lint let go.
type compacted map[*manifest.Object]*objectFacts

type objectFacts struct {
	uses     []secretUse
	jobWords []string
	// deprecated are the field checks the object fails
	// (deprecatedFieldsOf).
	deprecated []int
	// sopsValue: the object's text holds a SOPS-encrypted value
	// (holdsSOPSValue).
	sopsValue bool
}

// noFacts are the facts of an object with none; never changed.
var noFacts = &objectFacts{}

// keepsContent reports whether the cross-object rules read o's content.
func keepsContent(o *manifest.Object) bool {
	switch {
	case o.APIVersion == "v1":
		return o.Kind == "Secret" || o.Kind == "Namespace" || o.Kind == "ServiceAccount"
	case isKind(o, "networking.k8s.io", "Ingress"):
		return true
	}
	switch o.Group() {
	case groupESO, groupCertManager, groupSecretMirror:
		return true
	}
	return false
}

// compact lets go of the parsed content of res's objects that the
// cross-object rules do not read, keeping their facts.
func (c compacted) compact(res *render.Result) {
	for i := range res.Objects {
		o := &res.Objects[i]
		if keepsContent(o) || o.Content == nil {
			continue
		}
		f := &objectFacts{uses: secretUsesOf(o), deprecated: deprecatedFieldsOf(o), sopsValue: holdsSOPSValue(o.YAML)}
		if isKind(o, "batch", "Job") {
			f.jobWords = jobWords(o.Content)
		}
		if f.uses == nil && f.deprecated == nil && f.jobWords == nil && !f.sopsValue {
			f = noFacts // most objects: one value for them all, not one each
		}
		c[o] = f
		o.Content = nil
	}
}

// contentOf is o's parsed content: the one kept, or its YAML parsed again
// (the same parse the renderer does) when Lint let it go.
func contentOf(o *manifest.Object) map[string]any {
	if o.Content != nil {
		return o.Content
	}
	text := textOf(o)
	if len(text) == 0 {
		return nil
	}
	var c map[string]any
	if yaml.Unmarshal(text, &c) != nil {
		return nil // it parsed when rendered: not reached
	}
	return c
}

// textOf is o's YAML, loaded from the pool of its stored rendering when
// its cluster's checks hold it there (restore): nil only when the pool
// fails, which holds it in memory (not reached), and then the run fails
// once the cluster is checked (stored.release).
func textOf(o *manifest.Object) []byte {
	text, err := o.Text()
	if err != nil {
		return nil
	}
	return text
}

// secretUses are the Secret references of a rendered object.
func (c compacted) secretUses(o *manifest.Object) []secretUse {
	if f, ok := c[o]; ok {
		return f.uses
	}
	return secretUsesOf(o)
}

// deprecatedFields are the field checks o fails (deprecatedFieldsOf).
func (c compacted) deprecatedFields(o *manifest.Object) []int {
	if f, ok := c[o]; ok {
		return f.deprecated
	}
	return deprecatedFieldsOf(o)
}

// sopsValue reports whether o's text holds a SOPS-encrypted value.
func (c compacted) sopsValue(o *manifest.Object) bool {
	if f, ok := c[o]; ok {
		return f.sopsValue
	}
	return holdsSOPSValue(textOf(o))
}

// holdsSOPSValue reports whether a rendered text holds a SOPS-encrypted
// value (ENC[...]): a value that came from an encrypted file that was not
// decrypted.
func holdsSOPSValue(text []byte) bool { return bytes.Contains(text, []byte("ENC[AES256_GCM,")) }

// jobWordsOf are the words of a Job's commands and arguments.
func (c compacted) jobWordsOf(o *manifest.Object) []string {
	if f, ok := c[o]; ok {
		return f.jobWords
	}
	return jobWords(contentOf(o))
}
