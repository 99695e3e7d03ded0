package render_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/render"
)

// TestGuard: a guard made from the fixture's renderings finds every
// decrypted value of at least four characters in the forms a CEL
// expression or a template gives it on its way into a message (case
// changed, base64 and decoded, pieces left by substring, split and
// replace, quoted, in JSON), and leaves plain messages alone.
func TestGuard(t *testing.T) {
	useTestKey(t)
	repo := loadRepo(t, fixture)
	r := render.New(repo, render.DefaultOptions())
	var results []*render.Result
	for i := range repo.Targets {
		results = append(results, renderOK(t, r, &repo.Targets[i]))
	}
	guard := render.NewGuard(results...)
	if guard.Empty() {
		t.Fatal("the fixture's renderings decrypted nothing")
	}
	tried := 0
	for _, s := range secretValues(t, repo) {
		if len(s) < 16 {
			continue // a piece of a shorter one may be too short to tell: the rules show static messages for such data
		}
		tried++
		forms := map[string]string{
			"exact":        s,
			"upper":        strings.ToUpper(s),
			"lower":        strings.ToLower(s),
			"substring(1)": s[1:],
			"first half":   s[:len(s)/2+3],
			"last half":    s[len(s)/2-3:],
			"replaced":     strings.ReplaceAll(s, s[:1], "#"),
			"base64":       base64.StdEncoding.EncodeToString([]byte(s)),
			"base64 upper": strings.ToUpper(base64.StdEncoding.EncodeToString([]byte(s))),
			"raw url b64":  base64.RawURLEncoding.EncodeToString([]byte(s)),
			"quoted":       fmt.Sprintf("%q", s),
			"in a message": "annotation leak is " + strings.ToUpper(s) + ", refused",
		}
		for name, msg := range forms {
			if !guard.Quotes(msg) {
				t.Errorf("the guard misses a value's %s form", name)
			}
		}
	}
	if tried == 0 {
		t.Fatal("no decrypted value of 16 characters or more: the test proves nothing")
	}
	if render.NewGuard().Quotes("anything") {
		t.Error("an empty guard finds something")
	}
	for _, msg := range []string{
		"replicas 12 exceed the ceiling of 10 for application Deployments",
		"objects with data are refused",
		"",
	} {
		if guard.Quotes(msg) {
			t.Errorf("the guard withholds the plain message %q", msg)
		}
	}
	var nilGuard *render.Guard
	if nilGuard.Quotes("x") || !nilGuard.Empty() {
		t.Error("a nil guard guards something")
	}
}
