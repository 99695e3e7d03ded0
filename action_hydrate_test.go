package repotool_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// workflow is the part of an example workflow the tests read.
type workflow struct {
	Jobs map[string]struct {
		If    string `yaml:"if"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
			Run  string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestHydrateWorkflow runs docs/examples/github-hydrate-workflow.yml end
// to end against a local "origin": the hydrate job's steps on a merge to
// main push each cluster's environment/<cluster>-next branch, SOPS
// Secrets and all; the check job's Action step (hydrate-check on a
// checkout of one of those branches, with the inputs the workflow gives
// it) passes on what hydrate pushed, also after a second merge, and fails,
// naming the file, once a manifest is edited by hand on the branch.
func TestHydrateWorkflow(t *testing.T) {
	testtool.Require(t, "git")
	data, err := os.ReadFile("docs/examples/github-hydrate-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(testtool.TestKey(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := testtool.Repotool(t)
	tmp := t.TempDir()
	env := []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "HOME=" + tmp, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=dev", "GIT_COMMITTER_EMAIL=dev@example.com"}
	sh := func(dir string, script string, extra ...string) (string, error) {
		t.Helper()
		cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = dir, append(append([]string{}, env...), extra...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(dir, script string) {
		t.Helper()
		if out, err := sh(dir, script); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	origin, work := filepath.Join(tmp, "origin.git"), filepath.Join(tmp, "work")
	must(tmp, "git init -q --bare -b main "+origin+" && git clone -q "+origin+" "+work)
	files := map[string]string{
		"namespaces/a/Chart.yaml":            "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"namespaces/a/templates/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: {{ .Values.v | quote }}\n",
		"namespaces/a/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\nstringData:\n  password: {{ .Values.v | quote }}\n",
		"clusters/dev/a/dev-values-a.yaml":   "v: one\n",
		"clusters/prd/a/prd-values-a.yaml":   "v: two\n",
		".sops.yaml":                         "creation_rules:\n  - path_regex: manifest\\.yaml$\n    age: age1gv5876r2m5p20tl08h4p3fruc2kn47xy4z0h95y3taqqwvfgcu0qfqxvew\n",
	}
	testtool.WriteFiles(t, work, files)
	must(work, "git checkout -q -b main && git add -A && git commit -qm 'first' && git push -q origin main")

	// The hydrate job, on a push to main: every run: step, in order, with
	// its env (the secret from the repository's secrets).
	hydrateJob := func() {
		t.Helper()
		job := wf.Jobs["hydrate"]
		if job.If != "github.event_name == 'push'" {
			t.Fatalf("the hydrate job runs if %q", job.If)
		}
		ran := 0
		for _, s := range job.Steps {
			if s.Run == "" || strings.Contains(s.Run, "go install") { // repotool is on PATH, built from this tree
				continue
			}
			var extra []string
			for k, v := range s.Env {
				if v == "${{ secrets.SOPS_AGE_KEY }}" {
					v = string(key)
				}
				extra = append(extra, k+"="+v)
			}
			if out, err := sh(work, s.Run, extra...); err != nil {
				t.Fatalf("step %q: %v\n%s", s.Name, err, out)
			}
			ran++
		}
		if ran != 3 {
			t.Fatalf("ran %d steps of the hydrate job, want the fetch, hydrate and push", ran)
		}
	}
	// The check job, on a pull request into environment/dev: its two
	// checkouts, then the Action's hydrate-check step with the job's inputs.
	var check actionStep
	for _, s := range actionSteps(t) {
		if s.ID == "hydrate-check" {
			check = s
		}
	}
	job := wf.Jobs["check"]
	uses := job.Steps[len(job.Steps)-1]
	if job.If != "github.event_name == 'pull_request'" || uses.Uses != "repotool/repotool@v1" || uses.With["command"] != "hydrate-check" {
		t.Fatalf("the check job: if %q, last step %+v", job.If, uses)
	}
	checkJob := func(branch string) (string, error) {
		t.Helper()
		ws := filepath.Join(t.TempDir(), "workspace")
		must(tmp, "git clone -q -b main "+origin+" "+filepath.Join(ws, uses.With["path"])+" && git clone -q -b "+branch+" "+origin+" "+
			filepath.Join(ws, uses.With["hydrated"]))
		_, _, out, err := runStep(t, check, ws, "INPUT_PATH="+uses.With["path"], "INPUT_HYDRATED="+uses.With["hydrated"], "INPUT_HYDRATED_BRANCHES=",
			"SOPS_AGE_KEY="+string(key), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		return out, err
	}

	hydrateJob()
	refs, _ := sh(tmp, "git -C "+origin+" for-each-ref --format='%(refname)'")
	for _, want := range []string{"refs/heads/environment/dev-next", "refs/heads/environment/prd-next", "refs/notes/hydrator.metadata"} {
		if !strings.Contains(refs, want) {
			t.Errorf("origin has no %s after the hydrate job:\n%s", want, refs)
		}
	}
	if out, err := checkJob("environment/dev-next"); err != nil || !strings.Contains(out, "(the branch of cluster dev)") {
		t.Errorf("hydrate-check of what the job pushed: %v\n%s", err, out)
	}

	// A second merge: dev's value changes; the job commits on top.
	testtool.WriteFiles(t, work, map[string]string{"clusters/dev/a/dev-values-a.yaml": "v: three\n"})
	must(work, "git commit -qam 'dev: three' && git push -q origin main")
	hydrateJob()
	if n, _ := sh(tmp, "git -C "+origin+" rev-list --count environment/dev-next environment/prd-next --"); strings.TrimSpace(n) != "3" {
		t.Errorf("after two merges the -next branches hold %s commits, want dev two, prd one", n)
	}
	if out, err := checkJob("environment/prd-next"); err != nil {
		t.Errorf("hydrate-check of prd-next after a merge that left it alone: %v\n%s", err, out)
	}

	// A change pushed by hand to the branch.
	edit := filepath.Join(tmp, "edit")
	must(tmp, "git clone -q -b environment/dev-next "+origin+" "+edit)
	testtool.WriteFiles(t, edit, map[string]string{"a/manifest.yaml": "by: hand\n"})
	must(edit, "git commit -qam 'by hand' && git push -q origin environment/dev-next")
	if out, err := checkJob("environment/dev-next"); err == nil || !strings.Contains(out, "differs: a/manifest.yaml") {
		t.Errorf("hydrate-check of a manifest edited by hand: %v\n%s", err, out)
	}
}
