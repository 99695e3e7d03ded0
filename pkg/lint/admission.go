package lint

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/render"
)

// admissionOutcome is what putting every cluster's objects to its
// admission policies found, once per run: the admission-policy rule's
// findings and the admission-drift rule's.
type admissionOutcome struct {
	policy, drift []Finding
}

// admissionRef is where a policy, binding or param is: a rendered object,
// or a document of a file repotool.yaml names. content is the object as
// evaluated.
type admissionRef struct {
	p          *placed
	file       string
	node       *yaml.Node
	id, source string
	content    map[string]any
	// mutations are what the cluster's mutating policies changed in the
	// object: content is then the admitted object.
	mutations []admission.Mutation
}

// admissionCheck is what the admission rule reads: the repository (its
// configuration, the files it names, its CRDs), the renderings, where
// things are, and the run's CEL budget; run is what the clusters share.
type admissionCheck struct {
	ctx     context.Context
	repo    *repoFacts
	results []*render.Result
	at      *positions
	budget  int64
	run     *admissionRun
	// guard is the cluster's being checked (clusterView.guard).
	guard *render.Guard
	// admitted, when set, is told each object's admission (see Admit),
	// and problem each finding that a policy, binding or file cannot be
	// applied.
	admitted   func(p *placed, a admission.Admitted)
	problem    func(Finding)
	driftEntry func(cluster string, place argocd.Placement, p *placed, fields []string)
}

func newAdmissionRun() *admissionRun {
	return &admissionRun{compiler: admission.NewCompiler(), contents: map[[sha256.Size]byte]map[string]any{}, admitted: map[[sha256.Size]byte]*admittedFacts{}}
}

// admissionRun is what the clusters of a run share: the compiled policies
// and the objects as evaluated, decoded once however many clusters deploy
// the same bytes to the same namespace (a chart's objects mostly are).
type admissionRun struct {
	compiler *admission.Compiler
	contents map[[sha256.Size]byte]map[string]any
	// admitted are the objects admitted without a decision under a
	// cluster's policies, bindings, params and namespace labels
	// (admittedKey), with what the mutating policies did to them: the
	// same object under the same ones in another cluster is admitted the
	// same way.
	admitted map[[sha256.Size]byte]*admittedFacts
}

// admittedKey identifies an object's evaluation: its bytes and namespace,
// and everything of its cluster the decision depends on (the policies,
// bindings and params, given as env, and its namespace's labels).
func admittedKey(p *placed, text, env []byte, labels map[string]string) [sha256.Size]byte {
	h := sha256.New()
	h.Write(env)
	h.Write([]byte{0})
	h.Write(text)
	h.Write([]byte{0})
	h.Write([]byte(p.ns))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		h.Write([]byte{0})
		h.Write([]byte(k + "=" + labels[k]))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// clusterEnv is what of a cluster its objects' decisions depend on besides
// their namespace's labels, as bytes for admittedKey.
func clusterEnv(policies, bindings, params []admission.Input) []byte {
	var b []byte
	for _, list := range [][]admission.Input{policies, bindings, params} {
		for _, i := range list {
			data, _ := json.Marshal(i.Content) // maps marshal in key order
			b = append(append(b, data...), 0)
		}
		b = append(b, 1)
	}
	return b
}

// maxSharedContents bounds the objects admissionRun keeps: past it, they
// are decoded again rather than held.
const maxSharedContents = 20000

// sharedContent returns a rendered object as the API server would evaluate it
// (admission.NormalizeJSON), in the namespace it lands in, from its text
// (textOf); nil when that cannot be read as JSON (it parsed when
// rendered: not reached).
func (a *admissionRun) sharedContent(p *placed, text []byte) map[string]any {
	key := sha256.Sum256(append(append(slices.Clone(text), 0), p.ns...))
	if c, ok := a.contents[key]; ok {
		return c
	}
	data, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return nil
	}
	c, err := admission.NormalizeJSON(data)
	if err != nil {
		return nil
	}
	c = withNamespace(c, p.ns)
	if len(a.contents) >= maxSharedContents {
		clear(a.contents)
	}
	a.contents[key] = c
	return c
}

// params are the rendered objects of a kind some policy takes its params
// from.
func (a *admissionRun) params(policies []admission.Input, rest []*placed) []admission.Input {
	paramKinds := map[string]bool{}
	for _, p := range policies {
		spec, _ := p.Content["spec"].(map[string]any)
		if pk, ok := spec["paramKind"].(map[string]any); ok {
			paramKinds[fmt.Sprint(pk["apiVersion"], "/", pk["kind"])] = true
		}
	}
	var params []admission.Input
	for _, p := range rest {
		if paramKinds[p.o.APIVersion+"/"+p.o.Kind] {
			if c := a.sharedContent(p, textOf(p.o)); c != nil {
				params = append(params, admission.Input{Content: c, Ref: &admissionRef{p: p, content: c}, Normalized: true})
			}
		}
	}
	return params
}

// namesSecret reports whether a key on the JSON pointer ptr is, or holds,
// a value decrypted for the rendering res: the pointer may not be shown.
// Each key is asked alone, as a value is (a short value is found only
// whole).
func namesSecret(res *render.Result, ptr string) bool {
	return slices.ContainsFunc(jsonptr.Split(ptr), res.FromSecrets)
}

// admittedFacts are what admission made of an object that no policy
// denies, warns about or audits: the mutating policies' changes, and the
// admitted object when a caller of Admit asks for it.
type admittedFacts struct {
	mutations []admission.Mutation
	object    map[string]any
}

// secretParam stands for the param of a remembered mutation that read
// secret data (mutationReadsSecrets): the param itself, another
// cluster's, is not kept.
type secretParam struct{}

// Admitted is what a cluster's MutatingAdmissionPolicies make of one
// rendered object: the object the API server would store, or its denial.
// The admission rules find it; render --as-admitted and diff --as-admitted
// show it.
type Admitted struct {
	// Target is the rendering's target ("cluster/namespace") and Object
	// the object's index in its Objects.
	Target string
	Object int
	// Content is the object as rendered with the policies' changes to its
	// fields (Changes) made: the other fields stay as the chart wrote them,
	// without the API server's defaults. Nil when the object is denied.
	Content map[string]any
	// Changes are the policies that changed it, in the order they ran.
	Changes []AdmissionChange
	// Denied says why a mutating policy denies the object (its failure
	// under failurePolicy Fail), never quoting a value.
	Denied string
}

// AdmissionChange is what one mutating policy, through one binding, did to
// an object: the fields (JSON pointers) it set, changed or removed.
type AdmissionChange struct {
	Policy, Binding string
	Fields          []string
}

// String is the change as a line: the policy, its binding and the fields.
func (c AdmissionChange) String() string {
	return fmt.Sprintf("MutatingAdmissionPolicy %s (binding %s): %s", c.Policy, c.Binding, strings.Join(c.Fields, ", "))
}
