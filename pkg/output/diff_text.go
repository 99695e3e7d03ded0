package output

import (
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/change"
)

type diffText struct{}

func (diffText) Name() string { return "text" }

// Write prints the affected targets with the files that affect them, then
// each changed object, by target, with its unified diff (secret values are
// placeholders; a secret that changed is named by its field).
func (diffText) Write(w io.Writer, res *change.Result) error {
	ew := &errWriter{w: w}
	if len(res.Targets) == 0 && len(res.ArgoCD) == 0 {
		ew.printf("no target is affected\n")
		return ew.err
	}
	ew.printf("affected targets:\n")
	for _, t := range res.Targets {
		state := ""
		switch {
		case t.Added:
			state = " (added)"
		case t.Removed:
			state = " (removed)"
		}
		ew.printf("  %s%s", t.Name, state)
		if len(t.Files) > 0 {
			ew.printf(": %s", strings.Join(t.Files, ", "))
		}
		ew.printf("\n")
	}
	target := ""
	for _, c := range res.Changes {
		if c.Target != target {
			target = c.Target
			ew.printf("\n=== %s\n", target)
		}
		ew.printf("%s %s", c.Action, c.Object)
		if c.APIVersion != "" {
			ew.printf(" (apiVersion %s)", c.APIVersion)
		}
		ew.printf("\n")
		for _, f := range c.SecretFields {
			ew.printf("  secret value changed: %s (not shown)\n", f)
		}
		if c.Diff != "" {
			ew.printf("%s", c.Diff)
			if !strings.HasSuffix(c.Diff, "\n") {
				ew.printf("\n")
			}
		}
	}
	if len(res.ArgoCD) > 0 {
		ew.printf("\n=== generated Argo CD objects\n")
	}
	for _, c := range res.ArgoCD {
		ew.printf("%s %s\n%s", c.Action, c.Object, c.Diff)
		if !strings.HasSuffix(c.Diff, "\n") {
			ew.printf("\n")
		}
	}
	for _, w := range res.Warnings {
		ew.printf("\nwarning: %s\n", w)
	}
	for _, e := range res.Errors {
		ew.printf("\nerror: %s\n", e)
	}
	ew.printf("\n%s in %s", count(len(res.Changes), "changed object"), count(len(res.Targets), "affected target"))
	if len(res.ArgoCD) > 0 {
		ew.printf(", %s", count(len(res.ArgoCD), "changed Argo CD object"))
	}
	ew.printf("\n")
	return ew.err
}
