package lint

import (
	"reflect"
	"testing"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// TestCompact: the content of kinds the cross-object rules do not read is
// let go, with their Secret references and a Job's words kept as facts;
// contentOf parses it again, as it was.
func TestCompact(t *testing.T) {
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
`)
	objs, err := manifest.Read(stream)
	if err != nil {
		t.Fatal(err)
	}
	before := make([]map[string]any, len(objs))
	for i := range objs {
		before[i] = objs[i].Content
	}
	res := &render.Result{Objects: objs}
	c := compacted{}
	c.compact(res)
	deploy, job, secret, es := &res.Objects[0], &res.Objects[1], &res.Objects[2], &res.Objects[3]
	if deploy.Content != nil || job.Content != nil {
		t.Error("the Deployment's and the Job's content were kept")
	}
	if secret.Content == nil || es.Content == nil {
		t.Error("the Secret's or the ExternalSecret's content was let go")
	}
	if got := c.secretUses(deploy); !reflect.DeepEqual(got, []secretUse{{"web-env", "envFrom"}}) {
		t.Errorf("Deployment's Secret uses = %v", got)
	}
	if got := c.jobWordsOf(job); !reflect.DeepEqual(got, []string{"create", "--secret-name", "webhook-tls"}) {
		t.Errorf("Job's words = %v", got)
	}
	for i := range res.Objects {
		if got := contentOf(&res.Objects[i]); !reflect.DeepEqual(got, before[i]) {
			t.Errorf("contentOf(%s) = %v, want %v", res.Objects[i].ID(), got, before[i])
		}
	}
}
