package render_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// TestRedactedKeepsStructure: redacted output masks only where secret values
// flowed, stays valid YAML with the same objects, names and structure, and
// does not mask ordinary words that happen to equal a secret value. (Before,
// a secret value "nginx" masked every "nginx" in a bitnami chart's output,
// object names included, and an unquoted "[redacted]" turned labels and
// args into YAML lists.)
func TestRedactedKeepsStructure(t *testing.T) {
	encrypted := "auth:\n  password: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n  port: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:int]\nsops:\n  mac: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n  version: 3.13.3\n"
	repo := mapRepo(t, map[string]string{
		"namespaces/nginx/Chart.yaml": "apiVersion: v2\nname: nginx\nversion: 1.0.0\n",
		"namespaces/nginx/templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels:
    app.kubernetes.io/name: nginx
    helm.sh/chart: nginx-1.0.0
    secret-label: {{ .Values.auth.password }}
spec:
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
        - name: nginx
          image: nginx:1.27
          args: [--password, {{ .Values.auth.password }}, --port, "{{ .Values.auth.port }}"]
          env:
            - name: JSON
              value: {{ .Values.auth | toJson | quote }}
`,
		"namespaces/nginx/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: nginx\nstringData:\n  password: {{ .Values.auth.password | quote }}\n",
		"clusters/c1/nginx/values-a.secret.yaml": encrypted,
	})
	r := render.New(repo, render.DefaultOptions(), render.WithDecrypter(stubDecrypter{
		"clusters/c1/nginx/values-a.secret.yaml": "auth:\n  password: nginx\n  port: 31337\n",
	}))
	res, err := r.Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	red, err := res.Redacted()
	if err != nil {
		t.Fatal(err)
	}
	real, masked := docs(t, res.Manifest), docs(t, red)
	if len(real) != len(masked) {
		t.Fatalf("redacted output has %d objects, the rendering %d", len(masked), len(real))
	}
	for i := range real {
		if shape(real[i]) != shape(masked[i]) {
			t.Errorf("object %d changed structure:\n%s\nvs\n%s", i, shape(real[i]), shape(masked[i]))
		}
	}
	out := string(red)
	for _, keep := range []string{"name: nginx\n", "app.kubernetes.io/name: nginx", "helm.sh/chart: nginx-1.0.0", "image: nginx:1.27", "- name: nginx"} {
		if !strings.Contains(out, keep) {
			t.Errorf("redacted output lost %q:\n%s", keep, out)
		}
	}
	for _, leak := range []string{"secret-label: nginx", "- nginx", "31337", `\"password\":\"nginx\"`} {
		if strings.Contains(out, leak) {
			t.Errorf("redacted output holds the secret as %q:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, "secret-label: "+render.PlaceholderValue) || !strings.Contains(out, "password: \"[redacted]\"") {
		t.Errorf("secret values not replaced by placeholders:\n%s", out)
	}
	again, _ := res.Redacted()
	if !bytes.Equal(red, again) {
		t.Error("Redacted is not deterministic")
	}
	// RedactedObjects are the objects of that stream, read without
	// printing it and parsing it again.
	read, err := manifest.Read(red)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := res.RedactedObjects()
	if err != nil || len(objs) != len(read) {
		t.Fatalf("RedactedObjects: %d objects (%v), the stream %d", len(objs), err, len(read))
	}
	for i := range read {
		a, b := objs[i], read[i]
		if a.ID() != b.ID() || a.Template != b.Template || !bytes.Equal(a.YAML, b.YAML) || !reflect.DeepEqual(a.Content, b.Content) {
			t.Errorf("object %d: %s %s %q %v; the stream reads %s %s %q %v", i, a.ID(), a.Template, a.YAML, a.Content, b.ID(), b.Template, b.YAML, b.Content)
		}
	}
}

// docs parses a YAML stream into its documents.
func docs(t *testing.T, stream []byte) []*yaml.Node {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(stream))
	var out []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("not valid YAML: %v\n%s", err, stream)
		}
		if len(n.Content) > 0 && n.Content[0].Kind != yaml.ScalarNode {
			out = append(out, n.Content[0])
		}
	}
}

// shape is a node's structure: kinds and mapping keys, not scalar values.
func shape(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				b.WriteString(strings.Repeat(" ", depth) + n.Content[i].Value + ":\n")
				walk(n.Content[i+1], depth+1)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				b.WriteString(strings.Repeat(" ", depth) + "-\n")
				walk(c, depth+1)
			}
		}
	}
	walk(n, 0)
	return b.String()
}

// TestRedactedStopsWithCallerContext: the redacted copy, made on demand
// after Render returned, runs within the context the target was rendered
// with: cancelled (Ctrl-C), it ends at once rather than at --timeout.
// (Before, it ran on a context that could not be cancelled.)
func TestRedactedStopsWithCallerContext(t *testing.T) {
	encrypted := "password: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n  version: 3.13.3\n"
	repo := mapRepo(t, map[string]string{
		"namespaces/slow/Chart.yaml": "apiVersion: v2\nname: slow\nversion: 1.0.0\n",
		// Loops for minutes, but only with the placeholder for the value.
		"namespaces/slow/templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow\ndata:\n  n: \"{{ if eq .Values.password \"" + render.PlaceholderValue + "\" }}{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}{{ end }}\"\n",
		"clusters/c1/slow/values-a.secret.yaml": encrypted,
	})
	opts := render.DefaultOptions()
	opts.Timeout = time.Minute
	r := render.New(repo, opts, render.WithDecrypter(stubDecrypter{"clusters/c1/slow/values-a.secret.yaml": "password: hunter2\n"}))
	ctx, cancel := context.WithCancel(context.Background())
	res, err := r.Render(ctx, &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err = res.Redacted()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Redacted: %v, want it cancelled", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Redacted took %s after the context was cancelled", took)
	}
}
