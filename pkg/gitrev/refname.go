package gitrev

import (
	"fmt"
	"strings"
)

// CheckBranchName refuses a branch name Git would not accept as
// refs/heads/<name> (git check-ref-format --branch): go-git writes any
// name, so a name with "..", a space or a component starting with "."
// would make a reference Git ignores as broken, or a file outside
// refs/heads (../../hooks/x). The error names the rule.
func CheckBranchName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%q is not a valid Git branch name: %s", name, why) }
	switch {
	case name == "":
		return bad("it is empty")
	case strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.Contains(name, "//"):
		return bad("it starts or ends with /, or has an empty component")
	case strings.HasSuffix(name, "."):
		return bad("it ends with .")
	case strings.Contains(name, ".."):
		return bad("it holds ..")
	case strings.Contains(name, "@{"):
		return bad("it holds @{")
	case strings.HasPrefix(name, "-"):
		return bad("it starts with -")
	case strings.HasPrefix(name, "refs/"):
		return bad("it starts with refs/: give the branch's name (refs/heads/x/ would make refs/heads/refs/heads/x/...)")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return bad(fmt.Sprintf("it holds %q (no spaces, control characters or any of ~^:?*[\\)", r))
		}
	}
	for _, c := range strings.Split(name, "/") {
		if strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return bad("a component starts with . or ends with .lock")
		}
	}
	return nil
}
