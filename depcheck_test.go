package repotool_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryBoundaries keeps the library usable from other programs:
//   - no package under pkg/ imports cobra or pflag itself (the API
//     server's packages that the admission rule uses, k8s.io/component-base
//     and client-go's clientcmd, do pull them in transitively; that is
//     their choice, not an API of ours);
//   - no package under pkg/ depends, even transitively, on the CLI
//     (cmd/), on the developer tools (tools/) or on argo-cd, whose types pin old Kubernetes
//     libraries and need replace directives.
func TestLibraryBoundaries(t *testing.T) {
	direct := goList(t, "{{.ImportPath}}:{{range .Imports}} {{.}}{{end}}", "./pkg/...")
	for _, line := range strings.Split(strings.TrimSpace(direct), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "github.com/spf13/cobra") || strings.HasPrefix(imp, "github.com/spf13/pflag") {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
	deps := goList(t, "{{.ImportPath}}", "-deps", "./pkg/...")
	for _, dep := range strings.Fields(deps) {
		for _, f := range []string{
			"github.com/repotool/repotool/cmd/",
			"github.com/repotool/repotool/tools/",
			"github.com/argoproj/argo-cd",
		} {
			if strings.HasPrefix(dep, f) {
				t.Errorf("a pkg/ package depends on %s", dep)
			}
		}
	}
}

// TestLibraryWeight keeps the heavy dependencies where they are needed: the
// packages that only model, generate or format (config, layout, manifest,
// finding, argocd, output, schema, sopsfile) link neither Helm nor SOPS nor the
// cloud KMS clients SOPS brings, so that a program generating Argo CD
// objects or formatting findings stays small. Only decrypt, and render and
// lint through it, may. It also reports each package's dependency count, recorded
// in ARCHITECTURE.md.
func TestLibraryWeight(t *testing.T) {
	heavy := []string{
		"helm.sh/helm/",
		"github.com/getsops/sops/",
		"cloud.google.com/go/kms",
		"github.com/aws/aws-sdk-go",
		"github.com/Azure/azure-sdk-for-go",
	}
	light := []string{"config", "layout", "manifest", "finding", "change", "gitrev", "argocd", "output", "schema", "sopsfile", "migrate", "values"}
	for _, p := range light {
		deps := strings.Fields(goList(t, "{{.ImportPath}}", "-deps", "./pkg/"+p))
		for _, dep := range deps {
			for _, h := range heavy {
				if strings.HasPrefix(dep, h) {
					t.Errorf("pkg/%s depends on %s: keep it out of packages that only model, generate or format", p, dep)
				}
			}
		}
		t.Logf("pkg/%s: %d packages", p, len(deps))
	}
}

// TestBinaryWeight keeps out of the repotool binary what every command
// would pay for at start and none uses: the standard library's plugin
// package, which makes the linker keep and export every method of the
// program (48 MB more binary, 27 MB more resident at start, measured in
// docs/performance.md), and Helm's Kubernetes client with kubectl and
// kustomize, through which Helm's repo package links it. The chart supply
// reads repository indexes itself (pkg/render/internal/charts/index.go).
// Nor the ValidatingAdmissionPolicy plugin's packages (policy/generic and
// policy/validating), which link client-go's informers and fake clientset
// and made every command start slower (issue 47): pkg/admission evaluates
// policies with the CEL compiler, match conditions and matcher alone.
func TestBinaryWeight(t *testing.T) {
	for _, dep := range strings.Fields(goList(t, "{{.ImportPath}}", "-deps", "./cmd/repotool")) {
		switch {
		case dep == "plugin", dep == "helm.sh/helm/v3/pkg/repo", dep == "helm.sh/helm/v3/pkg/kube", dep == "helm.sh/helm/v3/pkg/getter",
			strings.HasPrefix(dep, "k8s.io/kubectl/"), strings.HasPrefix(dep, "sigs.k8s.io/kustomize/api/"),
			strings.HasPrefix(dep, "k8s.io/apiserver/pkg/admission/plugin/policy/generic"),
			strings.HasPrefix(dep, "k8s.io/apiserver/pkg/admission/plugin/policy/validating"),
			strings.HasPrefix(dep, "k8s.io/client-go/informers"), dep == "k8s.io/client-go/kubernetes/fake":
			t.Errorf("cmd/repotool links %s", dep)
		}
	}
}

func goList(t *testing.T, format string, args ...string) string {
	t.Helper()
	out, err := runGoList(format, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runGoList runs go list -f format args, for the tests and for values
// computed once for several of them.
func runGoList(format string, args ...string) (string, error) {
	out, err := exec.Command("go", append([]string{"list", "-f", format}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go list: %v\n%s", err, out)
	}
	return string(out), nil
}
