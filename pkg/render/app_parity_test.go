package render_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/render"
)

const appsFixture = "../../testdata/apps"

// appCalls are the `helm template` calls Argo CD 3.6's repo-server makes
// for testdata/apps' Applications (reposerver/repository's helmTemplate
// and util/helm's template): written out by hand from the Applications,
// so that the test does not read them with the code it tests. "@secret:"
// is a SOPS file passed decrypted through a pipe; "@inline:" the
// Application's values, which the repo-server writes to a file. Argo CD
// passes parameters before files; helm applies files, then --set, then
// --set-string, whatever the order.
var appCalls = map[string][]string{
	"prod/guestbook": {
		"guestbook", "charts/guestbook", "--namespace", "web", "--kube-version", "v1.35.0", "--api-versions", "monitoring.coreos.com/v1",
		"--set", `config.languages=en\,de`, "--set", "image.tag=1.28", "--set-string", "config.build=42",
		"--values", "charts/guestbook/values-prod.yaml", "--values", "envs/prod/guestbook.yaml", "--values", "@secret:envs/prod/guestbook.secret.yaml",
		"--values", "@inline:config:\n  theme: dark\n", "--include-crds",
	},
	"prod/guestbook-canary": {
		"guestbook-canary", "charts/guestbook", "--namespace", "web", "--kube-version", "v1.35.0", "--api-versions", "monitoring.coreos.com/v1",
		"--values", "envs/prod/guestbook.yaml", "--values", "envs/prod/canary-a.yaml", "--values", "envs/prod/canary-b.yaml",
		"--values", "@inline:replicaCount: 1\nimage:\n  tag: \"1.29-rc.1\"\nconfig:\n  canary: true\n", "--include-crds",
	},
	"prod/monitoring": {
		"monitoring", "charts/monitoring", "--namespace", "monitoring", "--kube-version", "v1.35.0", "--api-versions", "monitoring.coreos.com/v1",
		"--set", "interval=1m", "--include-crds",
	},
	"prod/monitoring-probes-only": {
		"probes", "charts/monitoring", "--namespace", "monitoring", "--kube-version", "v1.35.0", "--api-versions", "monitoring.coreos.com/v1",
		"--values", "@inline:probes:\n  - name: $ARGOCD_APP_NAME\n    url: http://monitoring.svc/\n",
	},
	"staging/guestbook-preview": {
		"preview", "charts/guestbook", "--namespace", "web-staging", "--kube-version", "v1.35.0",
		"--values", "envs/staging/guestbook.yaml", "--values", "envs/staging/preview.yaml", "--include-crds",
	},
	"staging/guestbook": {
		"guestbook", "charts/guestbook", "--namespace", "web-staging", "--kube-version", "v1.35.0",
		"--set", "config.app=guestbook in web-staging", "--set-file", "config.motd=envs/staging/motd.txt",
		"--values", "envs/staging/guestbook.yaml", "--include-crds", "--skip-tests",
	},
}

// TestApplicationHelmParity renders each Application of testdata/apps in
// process and with the helm CLI called as the repo-server calls it, and
// requires the same bytes.
func TestApplicationHelmParity(t *testing.T) {
	helm := testtool.Helm(t)
	useTestKey(t)
	repo := loadRepo(t, appsFixture)
	if len(repo.Targets) != len(appCalls) {
		t.Fatalf("testdata/apps has %d targets, the table %d", len(repo.Targets), len(appCalls))
	}
	r := render.New(repo, render.DefaultOptions())
	for i := range repo.Targets {
		tg := &repo.Targets[i]
		t.Run(tg.Name(), func(t *testing.T) {
			call, ok := appCalls[tg.Name()]
			if !ok {
				t.Fatalf("no helm call written for %s", tg.Name())
			}
			res, err := r.Render(context.Background(), tg)
			if err != nil {
				t.Fatal(err)
			}
			want := helmAppTemplate(t, helm, call)
			if !bytes.Equal(want, res.Manifest) {
				t.Errorf("output differs from helm template:\n--- helm\n%s\n--- repotool\n%s", want, res.Manifest)
			}
		})
	}
}

// helmAppTemplate runs `helm template` with args in testdata/apps: paths
// are the fixture's, a secret file is decrypted into a pipe, inline values
// are written to a file of the test's.
func helmAppTemplate(t *testing.T, helm string, args []string) []byte {
	t.Helper()
	tmp := t.TempDir()
	out := []string{"template", args[0], filepath.Join(appsFixture, args[1])}
	var pipes []*os.File
	for i := 2; i < len(args); i++ {
		a := args[i]
		if args[i-1] == "--set-file" {
			name, file, _ := strings.Cut(a, "=")
			out = append(out, name+"="+filepath.Join(appsFixture, file))
			continue
		}
		if args[i-1] != "--values" {
			out = append(out, a)
			continue
		}
		switch {
		case len(a) > 8 && a[:8] == "@secret:":
			data, err := os.ReadFile(filepath.Join(appsFixture, a[8:]))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := (&decrypt.SOPS{}).Decrypt(context.Background(), a[8:], data)
			if err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() { w.Write(plain); w.Close() }()
			defer r.Close()
			out = append(out, fmt.Sprintf("/dev/fd/%d", 3+len(pipes)))
			pipes = append(pipes, r)
		case len(a) > 8 && a[:8] == "@inline:":
			f := filepath.Join(tmp, fmt.Sprintf("inline-%d.yaml", i))
			if err := os.WriteFile(f, []byte(a[8:]), 0o600); err != nil {
				t.Fatal(err)
			}
			out = append(out, f)
		default:
			out = append(out, filepath.Join(appsFixture, a))
		}
	}
	return runHelm(t, helm, tmp, pipes, out...)
}
