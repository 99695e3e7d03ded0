package render_test

import (
	"context"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/render"
)

// TestSecretFields: the fields of testdata/canary's leaky target that its
// templates fill with secret values, in every encoding, are exactly the
// ones SecretFields lists, and the plain ones are not; a target without
// secret values has none.
func TestSecretFields(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, "../../testdata/canary")
	r := render.New(repo, render.DefaultOptions())
	leaky, _ := repo.Target("dev", "leaky")
	res, err := r.Render(context.Background(), leaky)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	fields, err := res.SecretFields()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range fields {
		o := res.Objects[f.Object]
		got[o.Kind+" "+f.Pointer] = true
		v, _ := o.Content["data"].(map[string]any)
		if strings.HasPrefix(f.Pointer, "/data/") && v[strings.TrimPrefix(f.Pointer, "/data/")] == "value" {
			t.Errorf("%s %s holds a plain value", o.Kind, f.Pointer)
		}
	}
	for _, want := range []string{"ConfigMap /data/b64", "ConfigMap /data/json", "ConfigMap /data/number", "ConfigMap /data/quoted"} {
		if !got[want] {
			t.Errorf("SecretFields lacks %s: %v", want, got)
		}
	}
	if got["ConfigMap /metadata/name"] {
		t.Error("a plain field is listed")
	}
	plain := render.New(repo, render.DefaultOptions(), render.WithDecrypter(render.PlaceholderDecrypter{}))
	if res, _ := plain.Render(context.Background(), leaky); res != nil {
		if f, err := res.SecretFields(); f != nil || err != nil {
			t.Errorf("without decrypted values: %v, %v", f, err)
		}
	}
}
