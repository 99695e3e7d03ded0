package lint

import (
	"reflect"
	"testing"

	"github.com/repotool/repotool/pkg/held"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// TestLetGo: the content of kinds the rules do not read whole is let go,
// with the facts the rules declare kept (a Deployment's Secret references,
// a Job's words, a ConfigMap's SOPS value); contentOf parses it again, as
// it was; a rule reads the same fact whether the run kept it or not; and
// an object with no fact is kept with none of its own; and what a store
// is handed (take) comes back the same (give), an object with no fact as
// the store gives it, with no lists.
func TestLetGo(t *testing.T) {
	stream := []byte(`---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web
          envFrom:
            - secretRef:
                name: web-env
---
apiVersion: batch/v1
kind: Job
metadata:
  name: certgen
spec:
  template:
    spec:
      containers:
        - name: c
          args: ["create", "--secret-name=webhook-tls"]
---
apiVersion: v1
kind: Secret
metadata:
  name: web-env
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: es
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: leaked
data:
  token: ENC[AES256_GCM,data:abc=,type:str]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
`)
	objs, err := manifest.Read(stream)
	if err != nil {
		t.Fatal(err)
	}
	v := newObjects(ruleFacts)
	before := make([]map[string]any, len(objs))
	whole := make([][][]string, len(objs))
	for i := range objs {
		before[i] = objs[i].Content
		for _, f := range ruleFacts {
			whole[i] = append(whole[i], f.of(&objs[i]))
		}
	}
	res := &render.Result{Objects: objs}
	v.letGo(res)
	deploy, job, secret, es, leaked, plain := &res.Objects[0], &res.Objects[1], &res.Objects[2], &res.Objects[3], &res.Objects[4], &res.Objects[5]
	if deploy.Content != nil || job.Content != nil || leaked.Content != nil {
		t.Error("the Deployment's, the Job's or the ConfigMap's content was kept")
	}
	if secret.Content == nil || es.Content == nil {
		t.Error("the Secret's or the ExternalSecret's content was let go")
	}
	if got := secretUses(v, deploy); !reflect.DeepEqual(got, []secretUse{{"web-env", "envFrom"}}) {
		t.Errorf("Deployment's Secret uses = %v", got)
	}
	if got := v.fact(job, factJobWords); !reflect.DeepEqual(got, []string{"create", "--secret-name", "webhook-tls"}) {
		t.Errorf("Job's words = %v", got)
	}
	if v.fact(leaked, factSOPSValue) == nil || v.fact(plain, factSOPSValue) != nil {
		t.Error("the SOPS value is not where it is")
	}
	if _, ok := v.bare[plain]; !ok || v.kept[plain] != nil {
		t.Error("an object with no fact holds facts of its own")
	}
	check := func(when string) {
		t.Helper()
		for i := range res.Objects {
			o := &res.Objects[i]
			for _, f := range ruleFacts {
				if got, want := v.fact(o, f), whole[i][f.at]; !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s: fact %d is %v let go, %v whole", when, o.ID(), f.at, got, want)
				}
			}
		}
	}
	check("let go")
	handed := make([]held.Facts, len(res.Objects))
	for i := range res.Objects {
		handed[i] = v.take(&res.Objects[i])
	}
	if handed[2] != nil || handed[5] == nil || len(v.kept)+len(v.bare) != 0 {
		t.Errorf("handed to a store: %q; still kept: %d, %d", handed, len(v.kept), len(v.bare))
	}
	v.give(res, handed)
	check("given back")
	for i := range res.Objects {
		o := &res.Objects[i]
		if got := contentOf(o); !reflect.DeepEqual(got, before[i]) {
			t.Errorf("contentOf(%s) = %v, want %v", o.ID(), got, before[i])
		}
	}
}

// TestFactsDeclared: every fact is a rule's, once.
func TestFactsDeclared(t *testing.T) {
	seen := map[*fact]string{}
	for _, r := range registry {
		for _, f := range r.facts {
			if other, ok := seen[f]; ok {
				t.Errorf("%s and %s declare one fact", other, r.ID)
			}
			seen[f] = r.ID
		}
	}
	if len(seen) != len(ruleFacts) || len(ruleFacts) == 0 {
		t.Errorf("%d facts declared, %d collected", len(seen), len(ruleFacts))
	}
	for i, f := range ruleFacts {
		if f.at != i {
			t.Errorf("fact %d knows itself as %d", i, f.at)
		}
	}
}
