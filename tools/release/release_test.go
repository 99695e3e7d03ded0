package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goreleaser builds the goreleaser go.mod pins into a temporary folder.
func goreleaser(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "goreleaser")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/goreleaser/goreleaser/v2")
	// From the module cache only: the README's test command downloads the
	// module first, and tests never download.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build goreleaser: %v\n%s", err, out)
	}
	return bin
}

// TestGoreleaserCheck runs `goreleaser check` on the repository's
// .goreleaser.yaml (the archives, and the image ko builds: kos), and on a
// copy with a field goreleaser does not know, which it must refuse: the
// check reads the configuration strictly.
func TestGoreleaserCheck(t *testing.T) {
	bin := goreleaser(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	check := func(config string) (string, error) {
		cmd := exec.Command(bin, "check", "--config", config)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := check(filepath.Join(root, ".goreleaser.yaml")); err != nil || !strings.Contains(out, "1 configuration file(s) validated") {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "    bare: true\n") {
		t.Fatal(".goreleaser.yaml has no kos entry with bare: true")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), "    bare: true\n", "    bare: true\n    runAsUser: 999\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := check(bad); err == nil || !strings.Contains(out, "field runAsUser not found") {
		t.Errorf("an unknown field passed the check: %v\n%s", err, out)
	}
}
