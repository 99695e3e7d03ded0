package repotool_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestActionDiffStep runs the Action's diff step on a Git repository with
// a change in the working tree: it reports the change, writes the
// markdown parts and the step summary, and a second run with no change
// says so.
func TestActionDiffStep(t *testing.T) {
	bin := testtool.Repotool(t)
	steps := stepsByID(t)
	work, repo := committedFixture(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	run := func() (string, string) {
		t.Helper()
		outputs, _, out, err := runStep(t, steps["diff"], work, "INPUT_PATH=gitops", "INPUT_BASE=HEAD", "INPUT_DECRYPT=false", "SOPS_AGE_KEY=",
			"GITHUB_STEP_SUMMARY="+summary, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		if err != nil {
			t.Fatalf("diff step: %v\n%s", err, out)
		}
		return outputs, out
	}
	outputs, out := run()
	if !strings.Contains(outputs, "changed=false") || !strings.Contains(outputs, "status=0") {
		t.Errorf("no change: outputs %s\n%s", outputs, out)
	}
	replaceIn(t, filepath.Join(repo, "clusters", "prod-cluster", "namespace-a", "prod-values-a.yaml"), "LOG_LEVEL: info", "LOG_LEVEL: trace")
	outputs, out = run()
	if !strings.Contains(outputs, "changed=true") || !strings.Contains(out, "LOG_LEVEL") {
		t.Errorf("a change: outputs %s\n%s", outputs, out)
	}
	dir := ""
	for _, l := range strings.Split(outputs, "\n") {
		if d, ok := strings.CutPrefix(l, "dir="); ok {
			dir = d
		}
	}
	part, err := os.ReadFile(filepath.Join(dir, "diff-001.md"))
	if err != nil || !strings.HasPrefix(string(part), "<!-- repotool-diff part 1/1 -->") || !strings.Contains(string(part), "Secret values were not decrypted") {
		t.Errorf("the part: %v\n%s", err, part)
	}
	if s, _ := os.ReadFile(summary); !strings.Contains(string(s), string(part)) {
		t.Error("the step summary does not hold the diff")
	}
}

// TestActionDiffComments runs the comment script against a stand-in for
// the GitHub CLI that keeps a pull request's comments in a folder: the
// parts are posted once, left alone when unchanged, updated in place, and
// the parts beyond a shorter diff deleted; other comments are never
// touched. A read-only token fails with what to do.
func TestActionDiffComments(t *testing.T) {
	testtool.Require(t, "jq")
	tmp := t.TempDir()
	bin, comments, parts := filepath.Join(tmp, "bin"), filepath.Join(tmp, "comments"), filepath.Join(tmp, "parts")
	for _, d := range []string{bin, comments, parts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(bin, "gh"), []byte(fakeGH))
	if err := os.Chmod(filepath.Join(bin, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(comments, "1"), []byte("LGTM <!-- repotool-diff part 1/1 --> quoted"))
	log := filepath.Join(tmp, "log")
	run := func(extra ...string) (string, error) {
		t.Helper()
		os.WriteFile(log, nil, 0o644)
		cmd := exec.Command("bash", "scripts/diff-comment.sh")
		cmd.Env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FAKE_GH=" + tmp, "PARTS_DIR=" + parts,
			"REPOSITORY=o/r", "PR_NUMBER=7", "GH_TOKEN=t"}, extra...)
		out, err := cmd.CombinedOutput()
		calls, _ := os.ReadFile(log)
		return strings.TrimSpace(string(calls)), fmt.Errorf("%w: %s", err, out)
	}
	setParts := func(bodies ...string) {
		t.Helper()
		old, _ := filepath.Glob(filepath.Join(parts, "*"))
		for _, f := range old {
			os.Remove(f)
		}
		for i, b := range bodies {
			write(t, filepath.Join(parts, fmt.Sprintf("diff-%03d.md", i+1)), []byte(fmt.Sprintf("<!-- repotool-diff part %d/%d -->\n%s\n", i+1, len(bodies), b)))
		}
	}
	state := func() string {
		entries, _ := os.ReadDir(comments)
		var out []string
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(comments, e.Name()))
			out = append(out, e.Name()+":"+strings.TrimSpace(string(data[strings.LastIndex(string(data), ">")+1:])))
		}
		return strings.Join(out, " ")
	}

	setParts("first", "second", "third")
	if calls, err := run(); calls != "GET repos/o/r/issues/7/comments?per_page=100\nPOST repos/o/r/issues/7/comments\nPOST repos/o/r/issues/7/comments\nPOST repos/o/r/issues/7/comments" {
		t.Fatalf("first run: %s\n%v", calls, err)
	}
	if s := state(); s != "1:quoted 2:first 3:second 4:third" {
		t.Errorf("after the first run: %s", s)
	}
	if calls, err := run(); calls != "GET repos/o/r/issues/7/comments?per_page=100" {
		t.Errorf("the same parts again: %s\n%v", calls, err)
	}
	setParts("first, changed")
	if calls, err := run(); calls != "GET repos/o/r/issues/7/comments?per_page=100\nPATCH repos/o/r/issues/comments/2\nDELETE repos/o/r/issues/comments/3\nDELETE repos/o/r/issues/comments/4" {
		t.Errorf("a shorter diff: %s\n%v", calls, err)
	}
	if s := state(); s != "1:quoted 2:first, changed" {
		t.Errorf("after the shorter diff: %s", s)
	}
	// No parts (repotool diff failed): nothing is deleted.
	setParts()
	if calls, err := run(); calls != "" || err == nil {
		t.Errorf("no parts: %s\n%v", calls, err)
	}
	setParts("first, changed", "new second")
	calls, err := run("FAKE_GH_READONLY=1")
	if err == nil || !strings.Contains(err.Error(), "::error::could not write the pull request's comments") || !strings.Contains(err.Error(), "pull-requests: write") {
		t.Errorf("a read-only token: %s\n%v", calls, err)
	}
}

// fakeGH stands in for `gh api` over a pull request whose comments are the
// files of $FAKE_GH/comments (named by id). It lists them in two pages, as
// --paginate prints them, and logs every call to $FAKE_GH/log.
const fakeGH = `#!/usr/bin/env bash
set -euo pipefail
[ "$1" = api ] || exit 64
shift
method=GET body="" url=""
while [ $# -gt 0 ]; do
  case "$1" in
    -X) method=$2; shift 2 ;;
    --paginate) shift ;;
    -F) body=${2#body=@}; shift 2 ;;
    *) url=$1; shift ;;
  esac
done
echo "$method $url" >> "$FAKE_GH/log"
dir=$FAKE_GH/comments
if [ "$method" != GET ] && [ -n "${FAKE_GH_READONLY:-}" ]; then
  echo '{"message":"Resource not accessible by integration","status":"403"}' >&2
  exit 1
fi
case "$method" in
  GET)
    ids=$(ls "$dir" | sort -n)
    first=$(echo "$ids" | head -n 2); rest=$(echo "$ids" | tail -n +3)
    for page in "$first" "$rest"; do
      for id in $page; do jq -Rs --argjson id "$id" '{id: $id, body: .}' "$dir/$id"; done | jq -s .
    done ;;
  POST)
    last=$(ls "$dir" | sort -n | tail -n 1)
    cp "$body" "$dir/$(( ${last:-0} + 1 ))" ;;
  PATCH) cp "$body" "$dir/${url##*/}" ;;
  DELETE) rm "$dir/${url##*/}" ;;
esac
`

// TestActionDiffDeletion: with fail-on-delete, a change that removes a
// namespace's folder ends the diff step with status 3 (the diff still
// written), which the next step turns into a failure naming the marker;
// a pull request whose description has the line "repotool: allow-delete"
// passes.
func TestActionDiffDeletion(t *testing.T) {
	testtool.Require(t, "jq")
	bin := testtool.Repotool(t)
	steps := map[string]actionStep{}
	for _, s := range actionSteps(t) {
		steps[s.Name] = s
	}
	work, repo := committedFixture(t)
	if err := os.RemoveAll(filepath.Join(repo, "clusters", "prod-cluster", "namespace-b")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, status string }{
		{"Retire namespace-b on prod.", "status=3"},
		{"Retire namespace-b on prod.\r\n\r\nrepotool: allow-delete\r\n", "status=1"},
	} {
		event := filepath.Join(t.TempDir(), "event.json")
		write(t, event, []byte(fmt.Sprintf(`{"pull_request": {"body": %q}}`, tc.body)))
		outputs, _, out, err := runStep(t, steps["Diff"], work, "INPUT_PATH=gitops", "INPUT_BASE=HEAD", "INPUT_DECRYPT=false", "INPUT_FAIL_ON_DELETE=true", "SOPS_AGE_KEY=",
			"GITHUB_EVENT_PATH="+event, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		if err != nil || !strings.Contains(outputs, tc.status) || !strings.Contains(outputs, "changed=true") {
			t.Errorf("%q: %v, outputs %s\n%s", tc.body, err, outputs, out)
		}
	}
	fail := steps["Fail on a deletion nobody approved"]
	if !strings.Contains(fail.If, "steps.diff.outputs.status == '3'") {
		t.Errorf("the failing step runs %s", fail.If)
	}
}

// TestActionDiffShards runs the diff step as a job matrix would: two parts
// (shard, shard-report), then the merge job (merge); the merge job's
// comment parts and outputs are those of one unsharded run.
func TestActionDiffShards(t *testing.T) {
	bin := testtool.Repotool(t)
	diffStep := stepsByID(t)["diff"]
	work, repo := committedFixture(t)
	for file, edit := range map[string][2]string{
		"clusters/prod-cluster/namespace-a/prod-values-a.yaml": {"LOG_LEVEL: info", "LOG_LEVEL: trace"},
		"namespaces/namespace-a/common-values-a.yaml":          {"containerPort: 8080", "containerPort: 8081"},
	} {
		replaceIn(t, filepath.Join(repo, file), edit[0], edit[1])
	}
	reports := t.TempDir()
	run := func(env ...string) (outputs, parts string) {
		t.Helper()
		outputs, _, out, err := runStep(t, diffStep, work, append([]string{"INPUT_PATH=gitops", "INPUT_BASE=HEAD", "INPUT_DECRYPT=false", "SOPS_AGE_KEY=",
			"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH")}, env...)...)
		if err != nil {
			t.Fatalf("diff step %v: %v\n%s", env, err, out)
		}
		for _, l := range strings.Split(outputs, "\n") {
			if d, ok := strings.CutPrefix(l, "dir="); ok {
				parts = readParts(t, d)
			}
		}
		return outputs, parts
	}
	wholeOutputs, wholeParts := run()
	run("INPUT_SHARD=1/2", "INPUT_SHARD_REPORT="+filepath.Join(reports, "1.json"))
	run("INPUT_SHARD=2/2", "INPUT_SHARD_REPORT="+filepath.Join(reports, "2.json"))
	mergedOutputs, mergedParts := run("INPUT_MERGE="+filepath.Join(reports, "1.json")+","+filepath.Join(reports, "2.json"), "INPUT_BASE=")
	if mergedParts != wholeParts || !strings.Contains(wholeParts, "LOG_LEVEL") || !strings.Contains(wholeParts, "8081") {
		t.Errorf("the merge job's comment parts differ from one run's:\n%s\n---\n%s", mergedParts, wholeParts)
	}
	if strip := func(s string) string { return s[strings.Index(s, "\n")+1:] }; strip(mergedOutputs) != strip(wholeOutputs) {
		t.Errorf("outputs: merged %q, one run %q", mergedOutputs, wholeOutputs)
	}
}

// committedFixture copies testdata/monorepo to repo, work/gitops, work
// being a Git repository whose one commit holds it, as a pull request's
// base: changes made to repo afterwards are the pull request's.
func committedFixture(t *testing.T) (work, repo string) {
	t.Helper()
	work = t.TempDir()
	repo = filepath.Join(work, "gitops")
	if err := os.CopyFS(repo, os.DirFS("testdata/monorepo")); err != nil {
		t.Fatal(err)
	}
	testtool.GitCommit(t, work, "base")
	return work, repo
}

// stepsByID are the Action's steps that have an id, by it.
func stepsByID(t *testing.T) map[string]actionStep {
	t.Helper()
	steps := map[string]actionStep{}
	for _, s := range actionSteps(t) {
		steps[s.ID] = s
	}
	return steps
}

// replaceIn replaces the first old in file with new, failing when the file
// does not hold old.
func replaceIn(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s: %v, or no %q", file, err, old)
	}
	write(t, file, []byte(strings.Replace(string(data), old, new, 1)))
}

// readParts is the markdown parts in dir, in order.
func readParts(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "diff-*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestActionDiffAsAdmitted: with as-admitted, the diff step compares the
// objects as the cluster's mutating policies admit them: turning prod's
// always-pull-images policy off changes its Deployments' pull policy,
// which the plain diff does not show.
func TestActionDiffAsAdmitted(t *testing.T) {
	bin := testtool.Repotool(t)
	steps := stepsByID(t)
	work, repo := committedFixture(t)
	replaceIn(t, filepath.Join(repo, "clusters", "prod-cluster", "policies", "prod-values-policies.yaml"), "alwaysPullImages: true", "alwaysPullImages: false")
	for _, admitted := range []string{"false", "true"} {
		_, _, out, err := runStep(t, steps["diff"], work, "INPUT_PATH=gitops", "INPUT_BASE=HEAD", "INPUT_DECRYPT=false", "SOPS_AGE_KEY=",
			"INPUT_AS_ADMITTED="+admitted, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		if err != nil {
			t.Fatalf("diff step (as-admitted %s): %v\n%s", admitted, err, out)
		}
		shown := strings.Contains(out, " base: MutatingAdmissionPolicy always-pull-images (binding always-pull-images)") && strings.Contains(out, "orders-api")
		if shown != (admitted == "true") {
			t.Errorf("as-admitted %s: the pull policy's change shown %v\n%s", admitted, shown, out)
		}
	}
}
