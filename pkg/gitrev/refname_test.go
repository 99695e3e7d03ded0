package gitrev_test

import (
	"os/exec"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/gitrev"
)

// TestCheckBranchNameLikeGit holds CheckBranchName to git check-ref-format
// on names hostile prefixes make.
func TestCheckBranchNameLikeGit(t *testing.T) {
	testtool.Require(t, "git")
	for _, name := range []string{
		"hydrated/prod", "env-prod", "a/b/c", "a..b/prod", "sp ace/prod", "../x/prod", "../../hooks/pre-commit-prod", ".hidden/prod",
		"x.lock/prod", "prod.lock", "a/.b", "a//b", "/a", "a/", "a.", "@", "a@{b", "a~1", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b",
		"tab\tx", "-x", "héllo/prod", "a.b/c", "@/x", "a@b",
	} {
		// Valid as a reference under refs/heads, and as a branch name
		// (--branch, which refuses a leading -, reads @ as HEAD).
		gitOK := exec.Command("git", "check-ref-format", "refs/heads/"+name).Run() == nil &&
			(name == "@" || exec.Command("git", "check-ref-format", "--branch", name).Run() == nil)
		if err := gitrev.CheckBranchName(name); (err == nil) != gitOK {
			t.Errorf("%q: CheckBranchName %v, git accepts it: %v", name, err, gitOK)
		}
	}
}

// TestBranchNameNotAReference: a name given as a reference (Git would
// take it, under refs/heads/refs/heads/) is refused, saying why.
func TestBranchNameNotAReference(t *testing.T) {
	for _, name := range []string{"refs/heads/x/prod", "refs/heads/prod", "refs/tags/prod"} {
		if err := gitrev.CheckBranchName(name); err == nil || !contains(err.Error(), "starts with refs/") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if err := gitrev.CheckBranchName("hydrated/refs/prod"); err != nil {
		t.Errorf("refs inside a name: %v", err)
	}
}

func FuzzCheckBranchName(f *testing.F) {
	for _, s := range []string{"hydrated/prod", "a..b", "../x", "a b", ".x", "x.lock"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if gitrev.CheckBranchName(name) != nil {
			return
		}
		for _, c := range []string{"..", " ", "//", "@{", "\\"} {
			if contains(name, c) {
				t.Fatalf("%q accepted with %q", name, c)
			}
		}
	})
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
