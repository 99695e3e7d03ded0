package cli_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// The canaries of testdata/canary: the plain values of its secret files.
var canaryStrings = []string{
	"CanaryTok3n-XYZ-4471",
	"Can\"ary\\Bk\tTab-5582",
	"-----BEGIN PRIVATE KEY-----\nCanaryPemLineOne6693\nCanaryPemLineTwo6693\n-----END PRIVATE KEY-----\n",
	"<Canary&Html>7704",
	"Qz7",
}

// canaryFragments are pieces of the canaries that survive any encoding a
// template or a formatter can give them (quoting, escaping, JSON, YAML,
// upper case, numbers in any notation), and the base64 forms.
func canaryFragments() []string {
	out := []string{"Canary", "CANARY", "Tab-5582", "Html", "Qz7",
		"99999123", "9.9999123", "9,999,912", "4444555", "4.4445551", "4,444,555"}
	for _, s := range canaryStrings {
		out = append(out, base64.StdEncoding.EncodeToString([]byte(s)))
	}
	return out
}

// TestCanarySecrets runs every command and output format over a repository
// whose secret values flow into templates in every encoding, into failing
// templates, values.schema.json errors and schema errors, and checks that no
// canary reaches any output (standard output, standard error, SARIF file,
// step summary, lint checked a cluster at a time, diff of a namespace
// added since the last commit, the CRD
// inventory and shard reports of a sharded lint, whose inventory holds a
// CRD built from a secret value) or any
// file render --out-dir writes, nor the credentials a CI job leaves in the
// work tree (.git/config, an ignored file), which a chart links to. Only the plain render
// stream to standard output, what Argo CD deploys, holds them, and the test
// checks that it does, so that the canaries are known to be decrypted.
func TestCanarySecrets(t *testing.T) {
	edit := func(t *testing.T, file, old, new string) {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(data), old) {
			t.Fatalf("%s: %v, or no %q", file, err, old)
		}
		if old == "" {
			data = append(data, new...)
		} else {
			data = []byte(strings.Replace(string(data), old, new, 1))
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := testtool.Repotool(t)
	root := testtool.ModuleRoot(t)
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(root, "testdata", "canary"))); err != nil {
		t.Fatal(err)
	}
	// A Git history for diff: a base commit without the leaky namespace of
	// cluster dev, so that diff shows every object it renders as added.
	leaky := filepath.Join(repo, "clusters", "dev", "leaky")
	aside := filepath.Join(t.TempDir(), "leaky")
	if err := os.Rename(leaky, aside); err != nil {
		t.Fatal(err)
	}
	// The CI job's Git credential in .git/config and a cloud login's in a
	// file Git ignores, which the chart of gitcfg links to and prints.
	credentials := plantCredentials(t, repo, "dev", "gitcfg")
	testtool.GitCommit(t, repo, "base")
	credentials()
	if err := os.Rename(aside, leaky); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	testDir := filepath.Dir(filepath.Dir(repo))
	env := testtool.CleanEnv(tmp, "SOPS_AGE_KEY_FILE="+filepath.Join(root, "testdata", "age-TEST-ONLY.key"))
	argocdEnv := func(ns string) []string {
		return slices.Concat(env, []string{"ARGOCD_APP_NAMESPACE=" + ns, "ARGOCD_APP_SOURCE_PATH=clusters/dev/" + ns,
			"ARGOCD_ENV_CLUSTER=dev", "ARGOCD_ENV_NAMESPACE=" + ns, "REPOTOOL_CLUSTER=dev"})
	}
	type run struct {
		name    string
		args    []string
		env     []string
		dir     string
		stdout  bool     // stdout may hold secrets (the plain render stream)
		files   []string // files the command writes, checked too
		outDirs []string // folders it writes, every file checked
		before  func()   // prepares the repository
		code    int      // the exit status, when not -1
		want    []string // what its standard output must hold, so that it proves something
	}
	sarif := filepath.Join(tmp, "lint.sarif")
	summary := filepath.Join(tmp, "summary.md")
	outDir := filepath.Join(tmp, "rendered")
	baseline := filepath.Join(tmp, "baseline.json")
	hydrated := filepath.Join(tmp, "hydrated")
	var runs []run
	for _, format := range []string{"text", "json"} {
		runs = append(runs, run{name: "layout " + format, args: []string{"layout", repo, "-o", format}})
	}
	for _, format := range []string{"text", "json", "sarif", "github"} {
		for _, noDecrypt := range []bool{false, true} {
			args := []string{"lint", repo, "-o", format, "--sarif-file", sarif}
			if noDecrypt {
				args = append(args, "--no-decrypt")
			}
			r := run{name: strings.Join(args[2:], " "), args: args, env: slices.Concat(env, []string{"GITHUB_STEP_SUMMARY=" + summary}), files: []string{sarif, summary}}
			if format == "text" && !noDecrypt {
				// A secret param copied by a mutating policy into another
				// target's object and printed by a validating policy's
				// messageExpression; checks failing on transformed values.
				r.want = []string{"ValidatingAdmissionPolicy prints-annotations", "annotations are not allowed here", "probe-upper", "probe-substring",
					"probe-replace", "probe-objects", "the error is withheld: the expression read secret data", "namespaces/gitcfg/files/gitcfg"}
			}
			runs = append(runs, r)
		}
	}
	// lint a cluster at a time (the renderings stored, compressed, between
	// their rendering and their cluster's checks), as a run over more
	// targets than --held-targets does.
	// The canary has one cluster: this copy has a second, its copy of dev.
	twoClusters := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(twoClusters, os.DirFS(filepath.Join(root, "testdata", "canary"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(twoClusters, "clusters", "stage"), os.DirFS(filepath.Join(twoClusters, "clusters", "dev"))); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(twoClusters, "repotool.yaml"), "clusters:\n", "clusters:\n  stage:\n    kubeVersion: v1.35.0\n")
	for _, format := range []string{"text", "json", "sarif"} {
		args := []string{"lint", twoClusters, "--held-targets", "1", "-o", format, "--sarif-file", sarif}
		runs = append(runs, run{name: "lint by cluster " + format, args: args, files: []string{sarif}})
	}
	// lint on a change: the leaky namespace is what changed.
	runs = append(runs, run{name: "lint --changed-since", args: []string{"lint", repo, "--changed-since", "HEAD", "-o", "json"}})
	// A sharded lint: the files one run hands another (the CRD inventory,
	// each shard's report) and the merge.
	inventory, shard1, shard2 := filepath.Join(tmp, "crds.json"), filepath.Join(tmp, "shard-1.json"), filepath.Join(tmp, "shard-2.json")
	runs = append(runs,
		run{name: "lint --crd-inventory-out", args: []string{"lint", repo, "--crd-inventory-out", inventory}, files: []string{inventory}},
		run{name: "lint --shard 1/2", args: []string{"lint", repo, "--shard", "1/2", "--crd-inventory", inventory, "--shard-report", shard1}, files: []string{shard1}},
		run{name: "lint --shard 2/2", args: []string{"lint", repo, "--shard", "2/2", "--shard-report", shard2}, files: []string{shard2}},
		run{name: "lint --merge", args: []string{"lint", repo, "--merge", shard1 + "," + shard2, "-o", "json"}})
	// diff: every format, every exit status. First the leaky namespace is
	// added (exit 1 with --exit-code); then, committed, its chart changes
	// (its objects change around secret values) and a target whose
	// template fails with secrets in its message is affected (exit 2).
	parts := filepath.Join(tmp, "parts")
	for _, format := range []string{"text", "json", "markdown"} {
		runs = append(runs,
			run{name: "diff " + format, args: []string{"diff", repo, "--base", "HEAD", "-o", format, "--exit-code", "--out-dir", parts, "--color", "always"}, outDirs: []string{parts}, code: cli.ExitFindings},
			run{name: "diff " + format + " --no-decrypt", args: []string{"diff", repo, "--base", "HEAD", "-o", format, "--no-decrypt"}, code: 0},
			run{name: "diff " + format + " --helm v4", args: []string{"diff", repo, "--base", "HEAD", "-o", format, "--exit-code", "--helm", "v4"}, code: cli.ExitFindings})
	}
	for i, format := range []string{"text", "json", "markdown"} {
		r := run{name: "diff changed " + format, args: []string{"diff", repo, "--base", "HEAD", "-o", format, "--out-dir", parts}, outDirs: []string{parts}, code: cli.ExitError}
		if i == 0 {
			r.before = func() {
				testtool.GitCommit(t, repo, "leaky")
				edit(t, filepath.Join(repo, "namespaces", "leaky", "templates", "cm.yaml"), "app: leaky", "app: leaky-v2")
				edit(t, filepath.Join(repo, "clusters", "dev", "failing", "dev-values-failing.yaml"), "", "# touched\n")
				edit(t, filepath.Join(repo, "clusters", "dev", "gitcfg", "dev-values-gitcfg.yaml"), "", "# touched\n")
			}
		}
		runs = append(runs, r)
	}
	// The same change as the cluster admits it: the mutating policies copy
	// secret values into the objects, and one fails quoting one.
	for _, format := range []string{"text", "json", "markdown"} {
		runs = append(runs, run{name: "diff changed --as-admitted " + format, args: []string{"diff", repo, "--base", "HEAD", "-o", format, "--as-admitted"},
			code: cli.ExitError})
	}
	// The same change compared in one part, its report, and the merge.
	diffReport := filepath.Join(tmp, "diff-1.json")
	runs = append(runs,
		run{name: "diff changed --shard 1/1 --shard-report", args: []string{"diff", repo, "--base", "HEAD", "--shard", "1/1", "--shard-report", diffReport}, files: []string{diffReport},
			code: cli.ExitError},
		run{name: "diff changed --merge markdown", args: []string{"diff", "--merge", diffReport, "-o", "markdown", "--out-dir", parts}, outDirs: []string{parts}, code: cli.ExitError})
	for _, ns := range []string{"leaky", "failing", "strict", "gitcfg"} {
		for _, format := range []string{"yaml", "json"} {
			runs = append(runs,
				run{name: "values " + ns + " " + format, args: []string{"values", repo, "-c", "dev", "-n", ns, "-o", format}},
				run{name: "values --origin " + ns + " " + format, args: []string{"values", repo, "-c", "dev", "-n", ns, "-o", format, "--origin"}})
		}
	}
	for _, ns := range []string{"leaky", "failing", "strict", "gitcfg"} {
		runs = append(runs,
			run{name: "render " + ns + " --redact", args: []string{"render", repo, "-c", "dev", "-n", ns, "--redact"}},
			run{name: "render " + ns, args: []string{"render", repo, "-c", "dev", "-n", ns}, stdout: true},
			run{name: "render --argocd " + ns, args: []string{"render", "--argocd"}, env: argocdEnv(ns), dir: filepath.Join(repo, "clusters", "dev", ns), stdout: true},
			run{name: "render --argocd --tier application " + ns, args: []string{"render", "--argocd", "--tier", "application"}, env: argocdEnv(ns), dir: filepath.Join(repo, "clusters", "dev", ns), stdout: true},
		)
	}
	runs = append(runs,
		run{name: "render --all --redact", args: []string{"render", repo, "--all", "--redact"}},
		run{name: "render --all --out-dir", args: []string{"render", repo, "--all", "--out-dir", outDir}, outDirs: []string{outDir}},
		run{name: "generate --stdout", args: []string{"generate", repo, "--stdout"}},
		run{name: "lint --write-baseline", args: []string{"lint", repo, "--write-baseline", baseline}, files: []string{baseline}},
		run{name: "lint --verbose", args: []string{"lint", repo, "--verbose"}},
		run{name: "migrate kes-to-eso", args: []string{"migrate", "kes-to-eso", repo}},
		// hydrate, of the commit holding leaky: its targets fail, and
		// neither the messages nor any file written names a secret.
		run{name: "hydrate", args: []string{"hydrate", repo, "--out", hydrated}, outDirs: []string{hydrated}, code: cli.ExitFindings},
		run{name: "hydrate --helm v4", args: []string{"hydrate", repo, "--out", hydrated, "--helm", "v4"}, outDirs: []string{hydrated}, code: cli.ExitFindings},
		run{name: "hydrate --secrets sops", args: []string{"hydrate", repo, "--out", hydrated, "--secrets", "sops"}, outDirs: []string{hydrated}, code: cli.ExitFindings},
		run{name: "hydrate --secrets sealed-secrets", args: []string{"hydrate", repo, "--out", hydrated, "--secrets", "sealed-secrets"}, outDirs: []string{hydrated}, code: cli.ExitFindings,
			before: func() {
				testtool.WriteFiles(t, repo, map[string]string{"clusters/dev/sealed-secrets.pem": testtool.SealedSecretsCert()})
			}},
	)
	// Rendered as Helm 4: other bytes and other error messages (traces),
	// through the same redaction.
	for _, ns := range []string{"leaky", "failing", "strict"} {
		runs = append(runs,
			run{name: "render --helm v4 " + ns + " --redact", args: []string{"render", repo, "-c", "dev", "-n", ns, "--redact", "--helm", "v4"}},
			run{name: "values --helm v4 --origin " + ns, args: []string{"values", repo, "-c", "dev", "-n", ns, "--origin", "--helm", "v4"}})
	}
	runs = append(runs,
		run{name: "render --helm v4 --all --out-dir", args: []string{"render", repo, "--all", "--out-dir", outDir, "--helm", "v4"}, outDirs: []string{outDir}},
		run{name: "lint --helm v4 json", args: []string{"lint", repo, "-o", "json", "--helm", "v4"}})
	// compare, last: a second cluster deploys leaky with the same secret
	// values and another plain value, which every template prints next to
	// the secrets (the whole .Values as JSON and YAML), so that the
	// objects' diff has secrets in its context lines.
	prod := func() {
		dst := filepath.Join(repo, "clusters", "prod", "leaky")
		if _, err := os.Stat(dst); err == nil {
			return
		}
		if err := os.CopyFS(dst, os.DirFS(leaky)); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"dev-values-leaky.yaml", "dev-values-leaky.secret.yaml"} {
			if err := os.Rename(filepath.Join(dst, f), filepath.Join(dst, strings.Replace(f, "dev-", "prod-", 1))); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dst, "prod-values-leaky.yaml"), []byte("plain: another value\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, format := range []string{"text", "json", "markdown"} {
		runs = append(runs,
			run{name: "compare " + format, args: []string{"compare", repo, "-n", "leaky", "dev", "prod", "-o", format, "--color", "always"}, before: prod},
			run{name: "compare --all-clusters " + format, args: []string{"compare", repo, "-n", "leaky", "--all-clusters", "-o", format}, before: prod},
			run{name: "compare --no-decrypt " + format, args: []string{"compare", repo, "-n", "leaky", "dev", "prod", "-o", format, "--no-decrypt"}, before: prod})
	}
	fragments := canaryFragments()
	decrypted := false
	for _, r := range runs {
		if r.before != nil {
			r.before()
		}
		cmd := exec.Command(bin, r.args...)
		cmd.Env = r.env
		if cmd.Env == nil {
			cmd.Env = env
		}
		cmd.Dir = r.dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		os.Remove(sarif)
		os.Remove(summary)
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); strings.HasPrefix(r.name, "diff ") && code != r.code {
			t.Errorf("%s: exit %d, want %d: %v\n%s", r.name, code, r.code, err, stderr.String())
		}
		outputs := map[string]string{"stderr": stderr.String()}
		if r.stdout {
			if strings.Contains(stdout.String(), canaryStrings[0]) {
				decrypted = true
			}
		} else {
			outputs["stdout"] = stdout.String()
		}
		for _, f := range r.files {
			data, _ := os.ReadFile(f)
			outputs[filepath.Base(f)] = string(data)
		}
		for _, d := range r.outDirs {
			filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					data, _ := os.ReadFile(p)
					outputs[p] = string(data)
				}
				return nil
			})
		}
		for _, w := range r.want {
			if !strings.Contains(strings.ReplaceAll(outputs["stdout"], "\n    ", " "), w) {
				t.Errorf("%s does not show %q, so it proves nothing:\n%s", r.name, w, outputs["stdout"])
			}
		}
		switch {
		case r.name == "lint --changed-since":
			// leaky renders admission policies and CRDs: the change is
			// linted over its whole cluster (dev's five targets).
			if !strings.Contains(outputs["stdout"], `"dev/leaky"`) || !strings.Contains(outputs["stdout"], `"targets": 5`) {
				t.Errorf("%s did not lint the namespace added since the last commit, so it proves nothing:\n%s", r.name, outputs["stdout"])
			}
		case strings.HasPrefix(r.name, "diff changed "):
			if !strings.Contains(outputs["stdout"], "leaky-v2") || !strings.Contains(outputs["stdout"], "dev/failing at head") {
				t.Errorf("%s shows no changed object and no failing target, so it proves nothing:\n%s", r.name, outputs["stdout"])
			}
			if strings.Contains(r.name, "--as-admitted") && !strings.Contains(outputs["stdout"], "MutatingAdmissionPolicy copies-secrets") {
				t.Errorf("%s does not say what the mutating policies did, so it proves nothing:\n%s", r.name, outputs["stdout"])
			}
		case strings.HasPrefix(r.name, "diff "):
			// gitcfg's links into .git are layout errors at both sides: the
			// Argo CD objects are not compared, and nothing else fails.
			rest := strings.NewReplacer("the layout at base has errors", "", "the layout at head has errors", "").Replace(outputs["stdout"])
			if !strings.Contains(outputs["stdout"], "dev/leaky") || !strings.Contains(outputs["stdout"], "added") || strings.Contains(rest, "error") {
				t.Errorf("%s shows no object of the added namespace, so it proves nothing:\n%s", r.name, outputs["stdout"])
			}
		}
		for where, text := range outputs {
			// The test's own folders are named after it ("TestCanary...").
			text = strings.ReplaceAll(text, testDir, "TESTDIR")
			for _, frag := range fragments {
				if strings.Contains(text, frag) {
					t.Errorf("%s: %s holds the canary fragment %q:\n%s", r.name, where, frag, text)
				}
			}
		}
	}
	if data, _ := os.ReadFile(baseline); !bytes.Contains(data, []byte(`"fingerprint"`)) {
		t.Error("the baseline run wrote no findings, so it proves nothing")
	}
	inv, _ := os.ReadFile(inventory)
	s1, _ := os.ReadFile(shard1)
	s2, _ := os.ReadFile(shard2)
	if !bytes.Contains(inv, []byte("gadgets.canary.example.com")) || !bytes.Contains(append(s1, s2...), []byte(`"rule"`)) {
		t.Errorf("the sharded runs wrote no inventory or no findings, so checking them proves nothing:\n%s\n%s\n%s", inv, s1, s2)
	}
	if !decrypted {
		t.Error("no plain render printed the canary: the secrets were not decrypted, so the test proves nothing")
	}
	if entries, _ := os.ReadDir(filepath.Join(outDir, "dev")); len(entries) != 2 {
		t.Errorf("render --out-dir wrote %d files, want the two targets that render (plain and leaky)", len(entries))
	}
}
