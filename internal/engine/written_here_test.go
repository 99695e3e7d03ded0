package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestWrittenHere: this package shares no run of six lines with Helm's
// pkg/engine (Helm 3's and Helm 4's), the engines it replaces, in the
// releases go.mod requires
// (blank lines, comments and lines of punctuation alone left out, white
// space folded). Helm is this engine's test oracle, never its source.
func TestWrittenHere(t *testing.T) {
	const run = 6
	theirs := map[string]string{} // a run of lines -> where it stands in Helm
	for _, helm := range []string{"helm.sh/helm/v3", "helm.sh/helm/v4"} {
		helmDir := filepath.Join(testtool.ModuleDir(t, helm), "pkg", "engine")
		before := len(theirs)
		for _, file := range goFiles(t, helmDir) {
			lines := significant(t, file)
			for i := 0; i+run <= len(lines); i++ {
				theirs[strings.Join(lines[i:i+run], "\n")] = helm + "'s " + filepath.Base(file)
			}
		}
		if len(theirs)-before < 300 {
			t.Fatalf("only %d new runs read from %s: is it Helm's engine?", len(theirs)-before, helmDir)
		}
	}
	for _, file := range goFiles(t, ".") {
		lines := significant(t, file)
		for i := 0; i+run <= len(lines); i++ {
			if where, ok := theirs[strings.Join(lines[i:i+run], "\n")]; ok {
				t.Errorf("%s shares these lines with %s:\n%s", file, where, strings.Join(lines[i:i+run], "\n"))
			}
		}
	}
}

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	return files
}

// significant is a file's lines with white space folded, without blank
// lines, comments, lines of punctuation alone and import blocks.
func significant(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	imports := false // inside an import block: a list of packages is no one's writing
	for line := range strings.Lines(string(data)) {
		line = strings.Join(strings.Fields(line), " ")
		switch {
		case line == "import (":
			imports = true
			continue
		case imports:
			imports = line != ")"
			continue
		}
		if line == "" || strings.HasPrefix(line, "//") || strings.Trim(line, "{}()[],;") == "" {
			continue
		}
		out = append(out, line)
	}
	return out
}
