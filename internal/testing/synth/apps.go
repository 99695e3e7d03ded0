package synth

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// AppsRepoURL is the repository URL AsApplications writes into
// repotool.yaml and every Application.
const AppsRepoURL = "https://example.com/synthetic.git"

// AsApplications turns a repository Generate or GenerateReal wrote in dst
// into one whose targets are Argo CD Applications
// (docs/applications.md), each rendering what its folder target rendered:
// namespaces/ moves to apps/ and clusters/ to envs/ (folders the layout
// does not read), and argocd/<cluster>/<namespace>.yaml is an Application
// of the chart at apps/<namespace> with the target's values files in the
// layout's merge order (common plain, common secret, the cluster's plain,
// then secret; each class by name). With sets, every other target's
// Application is made instead by an ApplicationSet per cluster
// (argocd/<cluster>/zz-set.yaml: a list generator, the values files put
// in by templatePatch), which makes the same Application. It returns the
// number of Applications.
func AsApplications(dst string, sets bool) (int, error) {
	for _, mv := range [][2]string{{"namespaces", "apps"}, {"clusters", "envs"}} {
		if err := os.Rename(filepath.Join(dst, mv[0]), filepath.Join(dst, mv[1])); err != nil {
			return 0, err
		}
	}
	clusters, err := os.ReadDir(filepath.Join(dst, "envs"))
	if err != nil {
		return 0, err
	}
	var cfg strings.Builder
	cfg.WriteString("git:\n  repoURL: " + AppsRepoURL + "\napplications:\n  paths: [\"argocd/{cluster}/*.yaml\"]\nclusters:\n")
	n := 0
	for _, c := range clusters {
		cfg.WriteString("  " + c.Name() + ": {}\n")
		targets, err := os.ReadDir(filepath.Join(dst, "envs", c.Name()))
		if err != nil {
			return 0, err
		}
		if err := os.MkdirAll(filepath.Join(dst, "argocd", c.Name()), 0o755); err != nil {
			return 0, err
		}
		var elements []string
		for i, t := range targets {
			ns := t.Name()
			var files []string
			for _, dir := range []string{path.Join("apps", ns), path.Join("envs", c.Name(), ns)} {
				fs, err := valuesFiles(filepath.Join(dst, filepath.FromSlash(dir)))
				if err != nil {
					return 0, err
				}
				for _, f := range fs {
					files = append(files, "/"+dir+"/"+f)
				}
			}
			if sets && i%2 == 1 {
				elements = append(elements, fmt.Sprintf("          - {ns: %s, files: [%s]}\n", ns, strings.Join(files, ", ")))
				n++
				continue
			}
			app := fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: %s\n  namespace: argocd\nspec:\n"+
				"  project: default\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: %s\n"+
				"  source:\n    repoURL: %s\n    path: apps/%s\n    helm:\n      valueFiles:\n", ns, ns, AppsRepoURL, ns)
			for _, f := range files {
				app += "        - " + f + "\n"
			}
			if err := os.WriteFile(filepath.Join(dst, "argocd", c.Name(), ns+".yaml"), []byte(app), 0o644); err != nil {
				return 0, err
			}
			n++
		}
		if err := writeSet(filepath.Join(dst, "argocd", c.Name(), "zz-set.yaml"), elements); err != nil {
			return 0, err
		}
	}
	f, err := os.OpenFile(filepath.Join(dst, "repotool.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	if _, err := f.WriteString(cfg.String()); err != nil {
		f.Close()
		return 0, err
	}
	return n, f.Close()
}

// writeSet writes the ApplicationSet that makes the Applications of
// elements; none when there are none.
func writeSet(file string, elements []string) error {
	if len(elements) == 0 {
		return nil
	}
	set := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: synthetic\n  namespace: argocd\nspec:\n" +
		"  goTemplate: true\n  generators:\n    - list:\n        elements:\n" + strings.Join(elements, "") +
		"  template:\n    metadata:\n      name: '{{.ns}}'\n    spec:\n      project: default\n" +
		"      destination:\n        server: https://kubernetes.default.svc\n        namespace: '{{.ns}}'\n" +
		"      source:\n        repoURL: " + AppsRepoURL + "\n        path: 'apps/{{.ns}}'\n" +
		"  templatePatch: |\n    spec:\n      source:\n        helm:\n          valueFiles:\n" +
		"          {{- range .files }}\n            - {{ . }}\n          {{- end }}\n"
	return os.WriteFile(file, []byte(set), 0o644)
}

// valuesFiles are the values files of a folder in the layout's order:
// plain, then secret, each by name; the chart's own values.yaml is not one.
func valuesFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var plain, secret []string
	for _, e := range entries {
		name := e.Name()
		ok, _ := path.Match("*values*.yaml", name)
		switch {
		case e.IsDir() || !ok || name == "values.yaml":
		case strings.HasSuffix(name, ".secret.yaml"):
			secret = append(secret, name)
		default:
			plain = append(plain, name)
		}
	}
	slices.Sort(plain)
	slices.Sort(secret)
	return append(plain, secret...), nil
}
