package output_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/output"
	"github.com/repotool/repotool/pkg/values"
)

// sampleDiff is a comparison with every kind of entry: added, removed and
// changed objects, an apiVersion bump, a secret value that changed, the
// values that made each changed field (moved, removed, secret), a target
// added and one removed, two re-rendered with no change (folded),
// generated Argo CD objects, a warning and an error.
func sampleDiff() *change.Result {
	return &change.Result{
		Base: "main", Head: "working tree",
		Targets: []change.Target{
			{Name: "dev/payments", Files: []string{"clusters/dev/payments/dev-values.yaml"}},
			{Name: "dev/shop", Files: []string{}, Added: true},
			{Name: "dev/search", Files: []string{".sops.yaml"}},
			{Name: "prod/search", Files: []string{".sops.yaml"}},
			{Name: "prod/legacy", Files: []string{}, Removed: true},
			{Name: "prod/payments", Files: []string{"namespaces/payments/common-values.secret.yaml", "namespaces/payments/common-values.yaml", "namespaces/payments/templates/a.yaml", "namespaces/payments/templates/b.yaml", "namespaces/payments/templates/c.yaml", "namespaces/payments/templates/d|e.yaml"}},
		},
		Changes: []change.Change{
			{Target: "dev/payments", Object: "v1/ConfigMap payments/config", Action: "changed",
				Diff: "--- base/v1/ConfigMap payments/config\n+++ head/v1/ConfigMap payments/config\n@@ -3,4 +3,4 @@\n data:\n-  LOG_LEVEL: \"debug\"\n+  LOG_LEVEL: \"info\"\n   MODE: \"```\"\n",
				Provenance: []change.Provenance{
					{Field: "/data/LOG_LEVEL", Key: "config.LOG_LEVEL", Head: &values.Source{File: "clusters/dev/payments/dev-values.yaml", Line: 4},
						Base: &values.Source{File: "namespaces/payments/common-values.yaml", Line: 9}},
					{Field: "/data/MODE", Key: "config.MODE", Base: &values.Source{File: "clusters/dev/payments/dev-values.yaml", Line: 5}},
				}},
			{Target: "dev/shop", Object: "v1/Service shop/web", Action: "added",
				Diff: "--- base/v1/Service shop/web\n+++ head/v1/Service shop/web\n@@ -0,0 +1,4 @@\n+apiVersion: v1\n+kind: Service\n+metadata:\n+  name: web\n"},
			{Target: "prod/legacy", Object: "apps/v1/Deployment legacy/old", Action: "removed",
				Diff: "--- base/apps/v1/Deployment legacy/old\n+++ head/apps/v1/Deployment legacy/old\n@@ -1,3 +0,0 @@\n-apiVersion: apps/v1\n-kind: Deployment\n-metadata: {name: old}\n"},
			{Target: "prod/payments", Object: "autoscaling/v2/HorizontalPodAutoscaler payments/api", Action: "changed", APIVersion: "autoscaling/v2beta2 -> autoscaling/v2",
				Diff: "--- base/autoscaling/v2/HorizontalPodAutoscaler payments/api\n+++ head/autoscaling/v2/HorizontalPodAutoscaler payments/api\n@@ -1,2 +1,2 @@\n-apiVersion: autoscaling/v2beta2\n+apiVersion: autoscaling/v2\n kind: HorizontalPodAutoscaler\n"},
			{Target: "prod/payments", Object: "v1/Secret payments/api", Action: "changed", SecretFields: []string{"/stringData/API_TOKEN"},
				Provenance: []change.Provenance{{Field: "/stringData/API_TOKEN", Head: &values.Source{File: "namespaces/payments/common-values.secret.yaml", Secret: true}}}},
		},
		ArgoCD: []change.Change{
			{Target: "prod", Object: "prod/application-legacy.yaml", Action: "removed",
				Diff: "--- base/prod/application-legacy.yaml\n+++ head/prod/application-legacy.yaml\n@@ -1,2 +0,0 @@\n-apiVersion: argoproj.io/v1alpha1\n-kind: Application\n"},
		},
		Warnings: []string{"Application legacy (cluster prod) is removed and syncs with automated prune: when the root application syncs, Argo CD deletes every resource it deployed"},
		Errors:   []string{"dev/broken at head: templates/x.yaml:3: nil pointer"},
	}
}

// TestDiffFormats checks each diff format against its golden file, and
// that the same result gives the same bytes.
func TestDiffFormats(t *testing.T) {
	tests := []struct {
		format, golden string
		opts           output.DiffOptions
		notDecrypted   bool
	}{
		{format: "text", golden: "diff.text.golden"},
		{format: "text", golden: "diff.text-color.golden", opts: output.DiffOptions{Color: true}},
		{format: "json", golden: "diff.json.golden"},
		{format: "markdown", golden: "diff.markdown.golden"},
		{format: "markdown", golden: "diff.markdown-no-decrypt.golden", notDecrypted: true},
		// Parts of 800 bytes: the table's header is repeated, a section
		// continues in the next part.
		{format: "markdown", golden: "diff.markdown-parts.golden", opts: output.DiffOptions{PartSize: 800, FullOutput: "the job log"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			f, err := output.NewDiffFormatter(tt.format)
			if err != nil {
				t.Fatal(err)
			}
			res := sampleDiff()
			res.NotDecrypted = tt.notDecrypted
			var a, b bytes.Buffer
			if err := f.Write(&a, res, tt.opts); err != nil {
				t.Fatal(err)
			}
			if err := f.Write(&b, sampleDiff(), tt.opts); err != nil {
				t.Fatal(err)
			}
			if !tt.notDecrypted && a.String() != b.String() {
				t.Error("two writes of the same result differ")
			}
			golden.Check(t, filepath.Join("testdata", tt.golden), a.Bytes())
		})
	}
	if _, err := output.NewDiffFormatter("html"); err == nil || !strings.Contains(err.Error(), "json, markdown, text") {
		t.Errorf("unknown format: %v", err)
	}
}

// TestMarkdownSplit splits more than 200 KB of diff, one object of it
// longer than a part, into comment-sized parts: every part fits and is
// well-formed markdown on its own, every object is in them, only the long
// one is cut, and the cut says so.
func TestMarkdownSplit(t *testing.T) {
	res := &change.Result{Base: "main", Head: "pr"}
	var objects []string
	for i := range 240 {
		target := fmt.Sprintf("cluster-%d/ns-%02d", i/60, i%60/4) // four objects each
		obj := fmt.Sprintf("v1/ConfigMap ns-%02d/config-%03d", i%60/4, i)
		var d strings.Builder
		fmt.Fprintf(&d, "--- base/%s\n+++ head/%s\n@@ -1,12 +1,12 @@\n", obj, obj)
		for j := range 12 {
			fmt.Fprintf(&d, "-  key-%02d: \"old value %03d-%02d ü\"\n+  key-%02d: \"new value %03d-%02d ü\"\n", j, i, j, j, i, j)
		}
		if i%4 == 0 {
			res.Targets = append(res.Targets, change.Target{Name: target, Files: []string{"namespaces/x/common-values.yaml"}})
		}
		res.Changes = append(res.Changes, change.Change{Target: target, Object: obj, Action: "changed", Diff: d.String()})
		objects = append(objects, obj)
	}
	// One object whose diff alone is larger than a comment.
	var huge strings.Builder
	huge.WriteString("--- base/v1/ConfigMap ns-00/huge\n+++ head/v1/ConfigMap ns-00/huge\n@@ -0,0 +1,4000 @@\n")
	for j := range 4000 {
		fmt.Fprintf(&huge, "+  line-%04d: \"%s\"\n", j, strings.Repeat("x", 20))
	}
	res.Targets = append(res.Targets, change.Target{Name: "cluster-9/ns-00", Files: []string{}, Added: true})
	res.Changes = append(res.Changes, change.Change{Target: "cluster-9/ns-00", Object: "v1/ConfigMap ns-00/huge", Action: "added", Diff: huge.String()})
	total := 0
	for _, c := range res.Changes {
		total += len(c.Diff)
	}
	if total < 200_000 {
		t.Fatalf("only %d bytes of diff", total)
	}

	parts := output.MarkdownParts(res, output.DiffOptions{})
	again := output.MarkdownParts(res, output.DiffOptions{})
	if strings.Join(parts, "\x00") != strings.Join(again, "\x00") {
		t.Error("two runs split differently")
	}
	if len(parts) < 4 {
		t.Fatalf("%d parts for %d bytes", len(parts), total)
	}
	header := regexp.MustCompile(`^<!-- repotool-diff part (\d+)/(\d+) -->\n## repotool diff \(part (\d+) of (\d+)\)\n`)
	for i, p := range parts {
		if len(p) > output.MaxCommentSize {
			t.Errorf("part %d: %d bytes", i+1, len(p))
		}
		m := header.FindStringSubmatch(p)
		if m == nil || m[1] != fmt.Sprint(i+1) || m[2] != fmt.Sprint(len(parts)) || m[3] != m[1] || m[4] != m[2] {
			t.Errorf("part %d starts %q", i+1, p[:min(len(p), 100)])
		}
		if o, c := strings.Count(p, "<details>"), strings.Count(p, "</details>"); o != c {
			t.Errorf("part %d: %d <details> and %d </details>", i+1, o, c)
		}
		if n := strings.Count(p, "```"); n%2 != 0 {
			t.Errorf("part %d: %d fences", i+1, n)
		}
		if !strings.Contains(p, "\n") || !isValidUTF8(p) {
			t.Errorf("part %d is not valid text", i+1)
		}
	}
	all := strings.Join(parts, "\n")
	for i, c := range res.Changes[:len(objects)] {
		if !strings.Contains(all, c.Diff) {
			t.Errorf("object %d (%s): its diff is not whole in any part", i, c.Object)
		}
	}
	if strings.Count(all, "This diff is cut") != 1 || !strings.Contains(all, "The whole diff is in the output of `repotool diff -o text`") {
		t.Error("the long diff is not cut once, with a notice")
	}
	if !strings.Contains(all, "(continued)</summary>") {
		t.Error("no section continues in the next part")
	}
	if !strings.Contains(all, "| `cluster-0/ns-00` | 0 | 0 | 4 |") || !strings.HasPrefix(parts[0][strings.Index(parts[0], "\n## ")+1:], "## repotool diff (part 1 of") {
		t.Error("the first part does not start with the summary table")
	}

	// Formatted whole, the parts follow one another.
	var b bytes.Buffer
	f, _ := output.NewDiffFormatter("markdown")
	if err := f.Write(&b, res, output.DiffOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != all {
		t.Error("-o markdown is not the parts one after the other")
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
