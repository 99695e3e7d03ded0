package repotool_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestActionlint checks action.yml and the documented workflow with
// actionlint: the workflow uses the Action from the repository root (./), so
// actionlint also checks the Action's inputs against its metadata.
func TestActionlint(t *testing.T) {
	actionlint := testtool.Actionlint(t)
	dir := t.TempDir()
	wf, err := os.ReadFile("docs/examples/github-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(wf, []byte("uses: repotool/repotool@v1")) {
		t.Fatal("the example workflow no longer uses repotool/repotool@v1")
	}
	wf = bytes.ReplaceAll(wf, []byte("uses: repotool/repotool@v1"), []byte("uses: ./"))
	write(t, filepath.Join(dir, ".github", "workflows", "repotool.yml"), wf)
	action, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "action.yml"), action)
	diffWF, err := os.ReadFile("docs/examples/github-diff-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".github", "workflows", "repotool-diff.yml"), bytes.ReplaceAll(diffWF, []byte("uses: repotool/repotool@v1"), []byte("uses: ./")))
	hydrateWF, err := os.ReadFile("docs/examples/github-hydrate-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".github", "workflows", "hydrate.yml"), bytes.ReplaceAll(hydrateWF, []byte("uses: repotool/repotool@v1"), []byte("uses: ./")))
	release, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".github", "workflows", "release.yml"), release)
	git(t, dir, "init", "-q")
	cmd := exec.Command(actionlint, "-color")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}

	// A wrong input name must be caught, or the check above proves nothing.
	write(t, filepath.Join(dir, ".github", "workflows", "repotool.yml"), bytes.Replace(wf, []byte("fail-on: error"), []byte("fail_on: error"), 1))
	cmd = exec.Command(actionlint, "-color")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("fail_on")) {
		t.Errorf("actionlint accepted an unknown input: %v\n%s", err, out)
	}
}

// TestActionScripts runs shellcheck over every run: script of action.yml,
// with the ${{ }} expressions replaced by placeholders.
func TestActionScripts(t *testing.T) {
	shellcheck := testtool.Require(t, "shellcheck")
	action := readAction(t)
	if action.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", action.Runs.Using)
	}
	scripts := 0
	for _, s := range action.Runs.Steps {
		if s.Run == "" {
			continue
		}
		scripts++
		if s.Shell != "bash" {
			t.Errorf("step %q: composite run steps need shell: bash", s.Name)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q: pass inputs through env, not ${{ }} inside the script (script injection)", s.Name)
		}
		cmd := exec.Command(shellcheck, "-s", "bash", "-")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("shellcheck step %q: %v\n%s", s.Name, err, out)
		}
	}
	if scripts == 0 {
		t.Fatal("no run steps found")
	}
	// The scripts the Action runs, and the benchmark scripts.
	sh, _ := filepath.Glob("scripts/*.sh")
	if len(sh) < 4 {
		t.Errorf("scripts: %v", sh)
	}
	cmd := exec.Command(shellcheck, append([]string{"-x"}, sh...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("shellcheck scripts: %v\n%s", err, out)
	}
}

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	ID    string            `yaml:"id"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	var action actionFile
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	return action
}

// actionSteps reads action.yml's steps.
func actionSteps(t *testing.T) []actionStep {
	t.Helper()
	return readAction(t).Runs.Steps
}

// runStep runs one of the Action's scripts with bash as the runner would,
// env given in the runner's terms, and returns what it wrote to
// $GITHUB_OUTPUT, $GITHUB_PATH and its output.
func runStep(t *testing.T, step actionStep, dir string, env ...string) (outputs, ghPath, out string, err error) {
	t.Helper()
	tmp := t.TempDir()
	outFile, pathFile := filepath.Join(tmp, "output"), filepath.Join(tmp, "path")
	os.WriteFile(outFile, nil, 0o644)
	os.WriteFile(pathFile, nil, 0o644)
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", step.Run)
	cmd.Dir = dir
	cmd.Env = append([]string{"GITHUB_OUTPUT=" + outFile, "GITHUB_PATH=" + pathFile, "RUNNER_TEMP=" + tmp, "HOME=" + tmp}, env...)
	b, err := cmd.CombinedOutput()
	o, _ := os.ReadFile(outFile)
	p, _ := os.ReadFile(pathFile)
	return string(o), string(p), string(b), err
}

// TestActionSteps runs the Action's own scripts: the release download with
// a ref that is no release (it must fall back to building, without the
// network), and the lint step on a repository in a subfolder of its Git
// repository (the path: input), whose annotations must name paths from the
// Git root.
func TestActionSteps(t *testing.T) {
	steps := stepsByID(t)
	outputs, _, out, err := runStep(t, steps["release"], t.TempDir(), "INPUT_VERSION=", "ACTION_REF=main", "PATH="+os.Getenv("PATH"))
	if err != nil || !strings.Contains(outputs, "found=false") || !strings.Contains(outputs, "version=main") {
		t.Errorf("release step with ref main: %v\n%s\n%s", err, outputs, out)
	}
	outputs, _, _, _ = runStep(t, steps["release"], t.TempDir(), "INPUT_VERSION=", "ACTION_REF=", "PATH="+os.Getenv("PATH"))
	if !strings.Contains(outputs, "version=latest") {
		t.Errorf("no version and no ref: %s", outputs)
	}

	bin := testtool.Repotool(t)
	work := t.TempDir()
	repo := filepath.Join(work, "deploy", "gitops")
	if err := os.CopyFS(repo, os.DirFS("testdata/lint/stray-api-version/repo")); err != nil {
		t.Fatal(err)
	}
	git(t, work, "init", "-q")
	outputs, _, out, err = runStep(t, steps["lint"], work, "INPUT_PATH=deploy/gitops", "INPUT_FAIL_ON=error", "INPUT_SARIF_FILE=repotool.sarif", "INPUT_DECRYPT=false",
		"SOPS_AGE_KEY=", "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	if err == nil || !strings.Contains(out, "::error file=deploy/gitops/bootstrap/legacy-2019.yaml,line=4,") || !strings.Contains(out, "repotool (devel)") {
		t.Errorf("lint step with path: deploy/gitops: %v\n%s", err, out)
	}
	if !strings.Contains(outputs, "sarif-file=repotool.sarif") {
		t.Errorf("outputs: %s", outputs)
	}
	sarif, err := os.ReadFile(filepath.Join(work, "repotool.sarif"))
	if err != nil || !bytes.Contains(sarif, []byte(`"uri": "deploy/gitops/bootstrap/legacy-2019.yaml"`)) {
		t.Errorf("SARIF paths are not from the Git root: %v", err)
	}
	// A matrix of two shards and the merge job, as docs/ci.md shows them:
	// the merge annotates what one run does.
	env := []string{"INPUT_PATH=deploy/gitops", "INPUT_FAIL_ON=error", "INPUT_SARIF_FILE=repotool.sarif", "INPUT_DECRYPT=false", "SOPS_AGE_KEY=",
		"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH")}
	none := []string{"INPUT_SHARD=", "INPUT_SHARD_REPORT=", "INPUT_MERGE=", "INPUT_CRD_INVENTORY=", "INPUT_CRD_INVENTORY_OUT="}
	if _, _, out, err := runStep(t, steps["lint"], work, append(append(env, none...), "INPUT_CRD_INVENTORY_OUT=crds.json")...); err != nil {
		t.Fatalf("the CRD inventory job: %v\n%s", err, out)
	}
	for _, i := range []string{"1", "2"} {
		runStep(t, steps["lint"], work, append(append(env, none...), "INPUT_SHARD="+i+"/2", "INPUT_SHARD_REPORT=shard-"+i+".json", "INPUT_CRD_INVENTORY=crds.json")...)
	}
	_, _, merged, err := runStep(t, steps["lint"], work, append(append(env, none...), "INPUT_MERGE=shard-1.json,shard-2.json")...)
	if err == nil || strings.Count(merged, "::error ") != strings.Count(out, "::error ") || !strings.Contains(merged, "::error file=deploy/gitops/bootstrap/legacy-2019.yaml,line=4,") {
		t.Errorf("merge of the shards' reports: %v\n%s\nwhere one run printed\n%s", err, merged, out)
	}
}

// TestReleaseMatchesAction: the archives .goreleaser.yaml publishes are the
// ones action.yml downloads, for the platforms GitHub runs.
func TestReleaseMatchesAction(t *testing.T) {
	var cfg struct {
		Builds []struct {
			GOOS   []string `yaml:"goos"`
			GOARCH []string `yaml:"goarch"`
			Main   string   `yaml:"main"`
			Binary string   `yaml:"binary"`
		} `yaml:"builds"`
		Archives []struct {
			Formats      []string `yaml:"formats"`
			NameTemplate string   `yaml:"name_template"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	data, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	b := cfg.Builds[0]
	if strings.Join(b.GOOS, ",") != "linux,darwin" || strings.Join(b.GOARCH, ",") != "amd64,arm64" || b.Main != "./cmd/repotool" || b.Binary != "repotool" {
		t.Errorf("builds = %+v", b)
	}
	a := cfg.Archives[0]
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || strings.Join(a.Formats, ",") != "tar.gz" {
		t.Errorf("archives = %+v", a)
	}
	if cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum = %+v", cfg.Checksum)
	}
	var release actionStep
	for _, s := range actionSteps(t) {
		if s.ID == "release" {
			release = s
		}
	}
	for _, want := range []string{`archive="repotool_${version#v}_${os}_${arch}.tar.gz"`, `"$base/checksums.txt"`, "sha256sum -c", `tar -xzf "$dir/$archive" -C "$dir" repotool`} {
		if !strings.Contains(release.Run, want) {
			t.Errorf("action.yml's release step does not say %s", want)
		}
	}
}

// TestActionHydrateCheck runs the Action's hydrate-check step: it passes
// on the output hydrate wrote, and fails, naming the file, once a
// manifest is edited by hand.
func TestActionHydrateCheck(t *testing.T) {
	var step actionStep
	for _, s := range actionSteps(t) {
		if s.ID == "hydrate-check" {
			step = s
		}
	}
	bin := testtool.Repotool(t)
	work := t.TempDir()
	testtool.WriteFiles(t, work, map[string]string{
		"gitops/namespaces/a/Chart.yaml":          "apiVersion: v2\nname: a\nversion: 1.0.0\n",
		"gitops/namespaces/a/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		"gitops/clusters/dev/a/dev-values-a.yaml": "v: one\n",
	})
	testtool.GitCommit(t, filepath.Join(work, "gitops"), "dry")
	env := []string{"INPUT_PATH=gitops", "INPUT_HYDRATED=hydrated", "SOPS_AGE_KEY=", "PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH")}
	if out, err := exec.Command(bin, "hydrate", filepath.Join(work, "gitops"), "--out", filepath.Join(work, "hydrated")).CombinedOutput(); err != nil {
		t.Fatalf("hydrate: %v\n%s", err, out)
	}
	if _, _, out, err := runStep(t, step, work, env...); err != nil {
		t.Errorf("hydrate-check of a fresh hydration: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(work, "hydrated", "dev", "a", "manifest.yaml"), []byte("by: hand\n"), 0o644)
	if _, _, out, err := runStep(t, step, work, env...); err == nil || !strings.Contains(out, "differs: dev/a/manifest.yaml") {
		t.Errorf("hydrate-check of an edited manifest: %v\n%s", err, out)
	}
}
