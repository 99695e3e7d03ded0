package repotool_test

import (
	"bufio"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The house: every package stands on a floor, and a package imports only
// packages on its own floor or below, so that the tree shows which way data
// flows. From the top:
//
//	cmd/, tools/   the CLI, and the developer programs beside it
//	pkg/           the library
//	internal/      small helpers pkg/ stands on, and the test helpers
//
// ARCHITECTURE.md's folder map lists the packages in that order (cmd, pkg
// from top to bottom, internal, tools) and TestFolderMap holds it to it.

const module = "github.com/repotool/repotool/"

// floor is the floor of a package of the module (its path without the
// module prefix); -1 for the module's root package, which holds only these
// tests and the module's doc.
func floor(p string) int {
	switch top, _, _ := strings.Cut(p, "/"); top {
	case "cmd", "tools":
		return 2
	case "pkg":
		return 1
	case "internal":
		return 0
	}
	return -1
}

// section is where a package's row stands in the folder map: cmd, pkg,
// internal, tools.
func section(p string) int {
	top, _, _ := strings.Cut(p, "/")
	return slices.Index([]string{"cmd", "pkg", "internal", "tools"}, top)
}

// isTestHelper reports whether p is one of the helpers only tests (and the
// developer programs) may import.
func isTestHelper(p string) bool { return strings.HasPrefix(p, "internal/testing/") }

type goPackage struct {
	path      string // without the module prefix; "" for the root
	imports   []string
	testOnly  []string // imported by the package's tests only
	doc       string
	goFiles   []string // tests' included
	directory string
}

// modulePackages lists the module's packages (tools included), with their
// imports of other packages of the module. The list is made once for all
// the tests that read it.
func modulePackages(t *testing.T) []goPackage {
	t.Helper()
	pkgs, err := listModule()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

var listModule = sync.OnceValues(func() ([]goPackage, error) {
	const sep = "\x1f"
	out, err := runGoList(strings.Join([]string{"{{.ImportPath}}", "{{join .Imports \" \"}}", "{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "{{.Doc}}", "{{join .GoFiles \" \"}} {{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}", "{{.Dir}}"}, sep), "-tags", "tools", "./...")
	if err != nil {
		return nil, err
	}
	own := func(list string) []string {
		var ps []string
		for _, imp := range strings.Fields(list) {
			if p, ok := strings.CutPrefix(imp, module); ok {
				ps = append(ps, p)
			}
		}
		return ps
	}
	var pkgs []goPackage
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, sep)
		if len(f) != 6 {
			return nil, fmt.Errorf("go list printed %q", line)
		}
		p := goPackage{path: strings.TrimPrefix(strings.TrimPrefix(f[0], module), "github.com/repotool/repotool"), imports: own(f[1]), doc: f[3], goFiles: strings.Fields(f[4]), directory: f[5]}
		for _, imp := range own(f[2]) {
			if imp != p.path && !slices.Contains(p.imports, imp) && !slices.Contains(p.testOnly, imp) {
				p.testOnly = append(p.testOnly, imp)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
})

// TestFloors requires every import arrow of the module, tests' included,
// to point to the importer's floor or below, and the test helpers to be
// imported by tests and developer programs only, never built into
// repotool.
func TestFloors(t *testing.T) {
	for _, p := range modulePackages(t) {
		if p.path == "" {
			continue
		}
		for _, imp := range slices.Concat(p.imports, p.testOnly) {
			if floor(imp) > floor(p.path) {
				t.Errorf("%s imports %s, which stands above it: move the shared part down (a helper to internal/, a model to a pkg/ leaf) or the importer up", p.path, imp)
			}
		}
		for _, imp := range p.imports {
			if isTestHelper(imp) && !strings.HasPrefix(p.path, "tools/") && !isTestHelper(p.path) {
				t.Errorf("%s imports the test helper %s outside its tests: it would be built into repotool", p.path, imp)
			}
		}
	}
}

// TestFolderMap requires ARCHITECTURE.md's folder map (its first table:
// folder, what it owns, what it may import) to list every package of the
// module, in the order of the house: the CLI, the library from top to
// bottom, internal, tools; within each, a package stands above the
// packages it imports. Every import of a package must be one its row
// allows: a folder named there, or any package below a folder named with a
// trailing slash ("pkg/"). A package's own internal packages
// (pkg/render/internal/util) belong to its row.
func TestFolderMap(t *testing.T) {
	rows := folderMap(t)
	at := map[string]int{}
	last := -1
	for i, r := range rows {
		at[r.folder] = i
		s := section(r.folder)
		if s < 0 {
			t.Errorf("ARCHITECTURE.md's folder map lists %s, which is not under cmd/, pkg/, internal/ or tools/: move it to the table of other folders", r.folder)
			continue
		}
		if s < last {
			t.Errorf("ARCHITECTURE.md lists %s after a folder of a lower section: keep the order cmd, pkg, internal, tools", r.folder)
		}
		last = s
		if _, err := os.Stat(r.folder); err != nil {
			t.Errorf("ARCHITECTURE.md's folder map names %s, which does not exist", r.folder)
		}
	}
	for _, p := range modulePackages(t) {
		if p.path == "" {
			continue
		}
		folder := p.path
		if parent, _, ok := strings.Cut(p.path, "/internal/"); ok {
			folder = parent
		}
		i, ok := at[folder]
		if !ok {
			t.Errorf("ARCHITECTURE.md's folder map has no row for %s: add one saying what it owns and what it may import", folder)
			continue
		}
		for _, imp := range p.imports {
			if strings.HasPrefix(imp, folder+"/internal/") {
				continue
			}
			if !rows[i].allows(imp) {
				t.Errorf("%s imports %s, which its row in ARCHITECTURE.md's folder map does not allow: add it there (keeping the floors), or drop the import", folder, imp)
			}
			if j, ok := at[imp]; ok && j < i && section(imp) == section(folder) {
				t.Errorf("ARCHITECTURE.md lists %s above %s, which imports it: list a package above the packages it imports", imp, folder)
			}
		}
	}
}

// mapRow is a row of the folder map.
type mapRow struct {
	folder string
	// mayImport are the folders named in the row's last column; one that
	// ends in "/" allows every package below it.
	mayImport []string
}

func (r mapRow) allows(imp string) bool {
	for _, m := range r.mayImport {
		if imp == m || strings.HasSuffix(m, "/") && strings.HasPrefix(imp, m) {
			return true
		}
	}
	return false
}

var (
	rowRE  = regexp.MustCompile("^\\| `([^`]+)` \\|.*\\|([^|]*)\\|$")
	codeRE = regexp.MustCompile("`([^`]+)`")
)

// folderMap returns the rows of ARCHITECTURE.md's first table, in order.
func folderMap(t *testing.T) []mapRow {
	t.Helper()
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []mapRow
	inTable := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue // the heading and its rule
		}
		r := mapRow{folder: strings.TrimSuffix(m[1], "/")}
		for _, c := range codeRE.FindAllStringSubmatch(m[2], -1) {
			r.mayImport = append(r.mayImport, c[1])
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("ARCHITECTURE.md has no folder map: a table of | `folder` | what it owns | what it may import |")
	}
	return rows
}

// maxLines is how long a Go file, tests included, may grow before it is
// split by concern: past it, a file usually does more than its name says.
const maxLines = 400

// longFiles are the files allowed past maxLines, each with its reason.
var longFiles = map[string]string{}

// TestFileSizes keeps each Go file of the module, tests included, within
// maxLines unless longFiles gives a reason.
func TestFileSizes(t *testing.T) {
	for _, p := range modulePackages(t) {
		for _, name := range p.goFiles {
			file := path.Join(p.path, name)
			data, err := os.ReadFile(filepath.Join(p.directory, name))
			if err != nil {
				t.Fatal(err)
			}
			n := strings.Count(string(data), "\n")
			reason, allowed := longFiles[file]
			switch {
			case n > maxLines && !allowed:
				t.Errorf("%s has %d lines, more than %d: split it by concern into files whose names say what they hold, or give the reason in longFiles", file, n, maxLines)
			case allowed && n <= maxLines:
				t.Errorf("%s has %d lines: drop its longFiles entry (%s)", file, n, reason)
			}
		}
	}
}

// TestPackageDocs requires a package comment of every package: what it
// owns and what it does not.
func TestPackageDocs(t *testing.T) {
	for _, p := range modulePackages(t) {
		if strings.TrimSpace(p.doc) == "" {
			name := p.path
			if name == "" {
				name = "the module's root package"
			}
			t.Errorf("%s has no package comment: add a doc.go saying what the package owns", name)
		}
	}
}
