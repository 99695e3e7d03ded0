package render_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testtool"
)

// TestHelm4Differences backs what docs/render.md says of Helm 4, which
// Argo CD 3.5 and later use for native Helm sources while repotool renders
// as Helm 3.22: on every fixture target, `helm template` of helm 4 (built
// from the version go.mod pins) prints the same documents as helm 3 (whose
// bytes repotool matches: TestHelmParity), in the same order, but not the
// same bytes: Helm 4.2 and later keep each document's trailing newlines,
// so a blank line comes before most `---`.
func TestHelm4Differences(t *testing.T) {
	helm, helm4 := testtool.Helm(t), testtool.Helm4(t)
	useTestKey(t)
	repo := loadRepo(t, fixture)
	work := filepath.Join(t.TempDir(), "repo")
	vendorForHelm(t, helm, work, repo)
	separator := regexp.MustCompile(`(?m)^---[ \t]*$`)
	docs := func(out []byte) []string {
		var out2 []string
		for _, d := range separator.Split(string(out), -1) {
			if d = strings.TrimSpace(d); d != "" {
				out2 = append(out2, d)
			}
		}
		return out2
	}
	differ := 0
	for i := range repo.Targets {
		tg := &repo.Targets[i]
		v3 := helmTemplate(t, helm, work, tg, tg.KubeVersion, tg.APIVersions)
		v4 := helmTemplate(t, helm4, work, tg, tg.KubeVersion, tg.APIVersions)
		if d3, d4 := docs(v3), docs(v4); !slices.Equal(d3, d4) || len(d3) == 0 {
			t.Errorf("%s: helm 4 prints other documents than helm 3 (%d against %d)", tg.Name(), len(d4), len(d3))
		}
		if !bytes.Equal(v3, v4) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("helm 4 prints the same bytes as helm 3 on every target: docs/render.md's difference is gone")
	}
}
