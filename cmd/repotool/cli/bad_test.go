package cli_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/golden"
)

// The bad-input corpus (testdata/bad, see its README): every case breaks
// testdata/bad/base in one way, and every command must answer it with the
// exit code the case names, never a panic, a hang or a silent skip, and,
// when it fails, with a message naming the file (and line) and the fix.

const badDir = "../../../testdata/bad"

// badOut keeps each case's repository in a folder of its own below it, for
// scripts/bench-bad.sh to measure the commands on.
var badOut = flag.String("bad-out", "", "keep each bad case's repository in `dir`/<case>/repo")

// badCase is one parsed case file.
type badCase struct {
	name   string
	exit   map[string]int // command -> exit code
	target [2]string      // cluster, namespace for render --cluster/--argocd
	want   []string       // in the output of every failing command
	del    []string
	links  map[string]string
	big    map[string]int
	fifos  []string
	files  map[string][]byte
}

// badCommands are the commands every case runs, by name.
var badCommands = []string{"layout", "render", "target", "argocd", "lint", "generate"}

func parseBadCase(t *testing.T, name string, data []byte) badCase {
	t.Helper()
	c := badCase{name: name, exit: map[string]int{}, links: map[string]string{}, big: map[string]int{}, files: map[string][]byte{}}
	header, body, _ := bytes.Cut(data, []byte("\n-- "))
	if bytes.HasPrefix(data, []byte("-- ")) {
		header, body = nil, data[3:]
	}
	for _, line := range strings.Split(string(header), "\n") {
		key, val, _ := strings.Cut(line, ": ")
		switch key {
		case "exit":
			for _, kv := range strings.Fields(val) {
				k, v, _ := strings.Cut(kv, "=")
				n, err := strconv.Atoi(v)
				if err != nil || !slices.Contains(badCommands, k) {
					t.Fatalf("%s: bad exit entry %q", name, kv)
				}
				c.exit[k] = n
			}
		case "target":
			cl, ns, _ := strings.Cut(val, "/")
			c.target = [2]string{cl, ns}
		case "want":
			c.want = append(c.want, val)
		case "delete":
			c.del = append(c.del, val)
		case "link":
			from, to, _ := strings.Cut(val, " -> ")
			c.links[from] = to
		case "big":
			p, n, _ := strings.Cut(val, " ")
			c.big[p], _ = strconv.Atoi(n)
		case "fifo":
			c.fifos = append(c.fifos, val)
		}
	}
	if len(c.exit) != len(badCommands) {
		t.Fatalf("%s: give the exit code of every command: %v", name, badCommands)
	}
	if c.target[0] == "" {
		c.target = [2]string{"dev", "app"}
	}
	for len(body) > 0 {
		head, rest, _ := bytes.Cut(body, []byte("\n"))
		file := strings.TrimSuffix(string(head), " --")
		content, next, found := bytes.Cut(rest, []byte("\n-- "))
		if found {
			content = append(content, '\n')
		}
		if b, ok := bytes.CutPrefix(content, []byte("hex:")); ok {
			var out []byte
			for _, f := range strings.Fields(string(b)) {
				v, err := strconv.ParseUint(f, 16, 8)
				if err != nil {
					t.Fatalf("%s: %s: bad hex byte %q", name, file, f)
				}
				out = append(out, byte(v))
			}
			content = out
		}
		c.files[file] = content
		body = next
	}
	return c
}

// build makes the case's repository in a new folder (below -bad-out, when
// given).
func (c badCase) build(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	if *badOut != "" {
		parent = filepath.Join(*badOut, c.name)
		if err := os.RemoveAll(parent); err != nil {
			t.Fatal(err)
		}
	}
	repo := filepath.Join(parent, "repo")
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(badDir, "base"))); err != nil {
		t.Fatal(err)
	}
	at := func(p string) string { return filepath.Join(repo, filepath.FromSlash(p)) }
	for _, p := range c.del {
		if err := os.RemoveAll(at(p)); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range c.files {
		os.MkdirAll(filepath.Dir(at(p)), 0o755)
		if err := os.WriteFile(at(p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range c.links {
		os.MkdirAll(filepath.Dir(at(p)), 0o755)
		os.RemoveAll(at(p))
		if err := os.Symlink(target, at(p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range c.fifos {
		os.MkdirAll(filepath.Dir(at(p)), 0o755)
		os.RemoveAll(at(p))
		if err := syscall.Mkfifo(at(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, n := range c.big {
		os.MkdirAll(filepath.Dir(at(p)), 0o755)
		line := []byte("k0000000: some configuration value that repeats\n")
		data := bytes.Repeat(line, n/len(line)+1)
		if err := os.WriteFile(at(p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

func (c badCase) run(t *testing.T, repo, command string) (string, int) {
	t.Helper()
	cl, ns := c.target[0], c.target[1]
	switch command {
	case "layout":
		return runCLI(t, "layout", repo)
	case "render":
		return runCLI(t, "render", repo, "--all")
	case "target":
		return runCLI(t, "render", repo, "--cluster", cl, "--namespace", ns)
	case "argocd":
		return runCLIEnv(t, cli.Env{Dir: filepath.Join(repo, "clusters", cl, ns), Environ: []string{
			"ARGOCD_APP_NAME=" + ns, "ARGOCD_APP_NAMESPACE=" + ns, "ARGOCD_APP_SOURCE_PATH=clusters/" + cl + "/" + ns,
			"ARGOCD_ENV_CLUSTER=" + cl, "ARGOCD_ENV_NAMESPACE=" + ns, "REPOTOOL_CLUSTER=" + cl,
		}}, "render", "--argocd")
	case "lint":
		return runCLI(t, "lint", repo)
	case "generate":
		return runCLI(t, "generate", repo, "--out-dir", filepath.Join(filepath.Dir(repo), "argocd"))
	}
	t.Fatalf("unknown command %s", command)
	return "", 0
}

var timestampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// TestBadInputs runs every command over every case of the corpus.
func TestBadInputs(t *testing.T) {
	withKey(t, true)
	entries, err := os.ReadDir(badDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".case")
		if !ok {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(badDir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			c := parseBadCase(t, name, data)
			repo := c.build(t)
			var all strings.Builder
			for _, command := range badCommands {
				out, code := c.run(t, repo, command)
				out = strings.ReplaceAll(out, filepath.Dir(repo), "TMP")
				out = timestampRE.ReplaceAllString(out, "TIMESTAMP")
				fmt.Fprintf(&all, "=== %s (exit %d)\n%s", command, code, out)
				if !strings.HasSuffix(out, "\n") {
					all.WriteString("\n")
				}
				if code != c.exit[command] {
					t.Errorf("%s: exit %d, want %d\n%s", command, code, c.exit[command], out)
				}
				if code == cli.ExitOK {
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(unwrap(out), w) {
						t.Errorf("%s: the output does not name %q:\n%s", command, w, out)
					}
				}
			}
			golden.Check(t, filepath.Join(badDir, name+".golden"), []byte(all.String()))
		})
	}
	if n < 60 {
		t.Errorf("the corpus has %d cases, want at least 60", n)
	}
}
