package lint

import (
	"fmt"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubescheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/finding"
)

// admissionFile is a document of a file clusters.<c>.admissionPolicies
// names.
type admissionFile struct {
	content map[string]any
	ref     *admissionRef
}

// admissionFiles reads the files and folders repotool.yaml names as a
// cluster's admission policies. A path that holds no manifest, or a file
// that cannot be read or parsed, is an error finding at repotool.yaml or
// the file: the policies in it would go unchecked.
func (ac *admissionCheck) admissionFiles(cluster string, report func(Finding)) []admissionFile {
	var out []admissionFile
	for _, at := range ac.repo.Repo.Config.ClusterAdmissionPolicies(cluster) {
		want := path.Clean(at.Path)
		var files []string
		for p := range ac.repo.files.Paths() {
			if (p == want || strings.HasPrefix(p, want+"/")) && slices.Contains(manifestExts, path.Ext(p)) {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			report(Finding{File: config.FileName, Line: at.Line, Message: fmt.Sprintf("clusters.%s.admissionPolicies names %s, which holds no .yaml, .yml or "+
				".json file: the cluster's policies there would go unchecked; correct the path", cluster, at.Path)})
			continue
		}
		for _, p := range files {
			if err, ok := ac.repo.unread[p]; ok {
				report(Finding{File: p, Message: fmt.Sprintf("the admission policies of cluster %s cannot be read: %v", cluster, err)})
				continue
			}
			docs, err := ac.repo.repoFile(p).Docs()
			if err != nil {
				line, msg := yamlpos.ErrorLine(err)
				report(Finding{File: p, Line: line, Message: fmt.Sprintf("the admission policies of cluster %s cannot be parsed: %s; correct the YAML", cluster, msg)})
				continue
			}
			for _, doc := range docs {
				var content map[string]any
				if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
					continue // an empty document
				}
				if err := doc.Decode(&content); err != nil || doc.Kind != yaml.MappingNode {
					report(Finding{File: p, Line: doc.Line, Message: fmt.Sprintf("a document of the admission policies of cluster %s is not a Kubernetes object; "+
						"correct it", cluster)})
					continue
				}
				node := doc
				api, _ := content["apiVersion"].(string)
				kind, _ := content["kind"].(string)
				meta, _ := content["metadata"].(map[string]any)
				name, _ := meta["name"].(string)
				ns, _ := meta["namespace"].(string)
				id := api + "/" + kind + " " + strings.TrimPrefix(ns+"/"+name, "/")
				out = append(out, admissionFile{content, &admissionRef{file: p, node: node, id: id}})
			}
		}
	}
	return out
}

// admissionLocation is where a policy, binding or param is, at field (a
// JSON pointer) when given.
func (ac *admissionCheck) admissionLocation(r *admissionRef, field, msg string) finding.Location {
	if r.p != nil {
		loc := ac.at.location(*r.p, msg)
		if field == "" {
			return loc
		}
		// An expression is found by its text (a policy has several), else
		// by its key.
		if text, ok := jsonptr.Get(contentOf(r.p.o), jsonptr.Split(field)); ok {
			if s, ok := text.(string); ok && len(s) >= 8 {
				if l := ac.at.objectLine(r.p.o, s); l > 0 {
					loc.Line = l
					return loc
				}
			}
		}
		if l := ac.at.templateLine(r.p.o, field); l > 0 {
			loc.Line = l
		}
		return loc
	}
	return finding.Location{File: r.file, Line: lineAtPath(r.node, field), Object: r.id, Message: msg}
}

// admissionFinding is a finding about a policy, binding or param itself.
func (ac *admissionCheck) admissionFinding(r *admissionRef, field string) Finding {
	loc := ac.admissionLocation(r, field, "")
	f := Finding{File: loc.File, Line: loc.Line, Object: loc.Object}
	if loc.Target != "" {
		f.Targets = []string{loc.Target}
	}
	return f
}

// builtinKind reports whether gvk is a kind Kubernetes serves itself.
func builtinKind(gvk schema.GroupVersionKind) bool { return kubescheme.Scheme.Recognizes(gvk) }
