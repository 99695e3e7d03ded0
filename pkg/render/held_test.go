package render_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// TestHoldUnhold: every target of the fixture, held and made again with
// its objects, is the rendering it was: its target, capabilities, error,
// conflicts and instability, the decrypted values it knows (and the
// strings that merely hold one, or none), and its redacted objects, made
// again on demand.
func TestHoldUnhold(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	ctx := context.Background()
	r := render.New(repo, render.DefaultOptions())
	secrets := secretValues(t, repo)
	var heldSecrets, known int
	for i := range repo.Targets {
		tg := &repo.Targets[i]
		res := renderOK(t, r, tg)
		h, strs := r.Hold(res)
		if h.KubeVersion() != res.Capabilities.KubeVersion || h.Err() != res.Err {
			t.Errorf("%s: held as rendered for %q with error %v, want %q and %v", tg.Name(), h.KubeVersion(), h.Err(), res.Capabilities.KubeVersion, res.Err)
		}
		got, err := r.Unhold(ctx, *tg, h, strs, res.Objects)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Target, res.Target) || !reflect.DeepEqual(got.Capabilities, res.Capabilities) ||
			got.Err != res.Err || !reflect.DeepEqual(got.Conflicts, res.Conflicts) || !reflect.DeepEqual(got.Unstable, res.Unstable) ||
			!reflect.DeepEqual(got.Placeholders, res.Placeholders) {
			t.Errorf("%s: made again as %+v, want %+v", tg.Name(), got, res)
		}
		if strs != nil {
			heldSecrets++
		}
		for _, s := range append(secrets, "plain", "", "prefix-"+secrets[0]+"-suffix") {
			if got.FromSecrets(s) {
				known++
			}
			if got.FromSecrets(s) != res.FromSecrets(s) {
				t.Errorf("%s: FromSecrets of a string is %v, want %v", tg.Name(), got.FromSecrets(s), res.FromSecrets(s))
			}
		}
		want, werr := res.RedactedObjects()
		objs, err := got.RedactedObjects()
		if (err == nil) != (werr == nil) || !reflect.DeepEqual(objs, want) {
			t.Errorf("%s: redacted objects made again differ (%v, want %v)", tg.Name(), err, werr)
		}
	}
	if heldSecrets == 0 || known == 0 {
		t.Fatalf("%d targets of the fixture held decrypted strings, %d strings known as secret: want some", heldSecrets, known)
	}
}

// TestHoldRest: what few renderings have (an error, conflicts,
// placeholders, instability, capabilities other than the renderer gives
// the target) is held too.
func TestHoldRest(t *testing.T) {
	repo := loadRepo(t, fixture)
	r := render.New(repo, render.DefaultOptions())
	tg := repo.Targets[0]
	res := &render.Result{
		Target:       tg,
		Capabilities: render.Capabilities{KubeVersion: "v1.20.0", APIVersions: []string{"example.com/v1"}},
		Err:          errors.New("render failed"),
		Conflicts:    []render.ValueConflict{{Key: "a.b"}},
		Placeholders: []error{errors.New("no key")},
		Unstable:     []render.Unstable{{Func: "now"}},
	}
	h, strs := r.Hold(res)
	if h.KubeVersion() != "v1.20.0" || h.Err() != res.Err {
		t.Errorf("held as rendered for %q with error %v, want v1.20.0 and the rendering's", h.KubeVersion(), h.Err())
	}
	if strs != nil {
		t.Errorf("a rendering without decrypted values held %d bytes of strings", len(strs))
	}
	got, err := r.Unhold(context.Background(), tg, h, strs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, res) {
		t.Errorf("made again as %+v, want %+v", got, res)
	}
}

// renderOK renders tg, failing the test when it does not render.
func renderOK(t *testing.T, r *render.Renderer, tg *layout.Target) *render.Result {
	t.Helper()
	res, err := r.Render(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
