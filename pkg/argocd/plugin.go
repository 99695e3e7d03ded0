package argocd

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/layout"
)

// Plugin returns the Config Management Plugin configuration (plugin.yaml,
// sidecar format): generate runs `repotool render --argocd`. With
// set.Discovery, discovery runs `repotool render --argocd --discover`,
// which claims an application only when its source path is a target of a
// repotool layout; without it (the default) only Applications that name
// the plugin use it, as every generated one does, and the repo-server
// sends the sidecar the repository once per render instead of twice.
func Plugin(set Settings) *ConfigManagementPlugin {
	p := &ConfigManagementPlugin{
		TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: "ConfigManagementPlugin"},
		Metadata: ObjectMeta{Name: set.PluginName},
		Spec: PluginSpec{
			Generate: PluginCommand{Command: []string{"repotool", "render", "--argocd"}},
		},
	}
	if set.Discovery {
		p.Spec.Discover = &PluginDiscover{Find: &PluginFind{Command: []string{"repotool", "render", "--argocd", "--discover"}}}
	}
	return p
}

// SidecarEnv is what the operator sets in the plugin sidecar's
// environment, out of any Application's reach.
type SidecarEnv struct {
	// Cluster is the cluster whose Argo CD runs the sidecar.
	Cluster string
	// AllowKeys are the key allowances (KIND=ID) besides age identities,
	// as sopsfile.KeyPolicy writes them.
	AllowKeys []string
}

func (s SidecarEnv) env() []map[string]any {
	env := []map[string]any{
		{"name": "SOPS_AGE_KEY_FILE", "value": "/sops/age/keys.txt"},
		{"name": "REPOTOOL_CACHE_DIR", "value": "/tmp/repotool-cache"},
		{"name": "HOME", "value": "/tmp"},
		{"name": SidecarClusterEnv, "value": s.Cluster},
	}
	if len(s.AllowKeys) > 0 {
		env = append(env, map[string]any{"name": "REPOTOOL_ALLOW_KEYS", "value": strings.Join(s.AllowKeys, ",")})
	}
	return env
}

// PluginInstall returns a YAML stream that installs the plugin in Argo CD's
// namespace: a ConfigMap holding plugin.yaml, and a strategic-merge patch
// for the argocd-repo-server Deployment that adds the repotool sidecar
// (image: a container image holding the repotool binary). SOPS keys come
// from the Secret repotool-sops-age (key keys.txt), mounted read-only.
// When exclusions are given (TarExclusions), a third document patches
// argocd-cmd-params-cm so that the repo-server leaves them out of the
// tarball it sends the plugin for every render.
//
// env is the operator's part of the sidecar's environment: the
// cluster it serves (REPOTOOL_CLUSTER: the plugin renders no other
// cluster's target) and the keys it may use besides age identities
// (REPOTOOL_ALLOW_KEYS, none when empty).
func PluginInstall(set Settings, image string, exclusions []string, env SidecarEnv) ([]byte, error) {
	if env.Cluster == "" {
		return nil, errors.New("the sidecar needs the cluster it serves (REPOTOOL_CLUSTER): the plugin renders that cluster's targets only")
	}
	pluginYAML, err := PluginYAML(set)
	if err != nil {
		return nil, err
	}
	cm := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      set.PluginName + "-plugin",
			"namespace": set.Namespace,
			"labels":    map[string]any{"app.kubernetes.io/managed-by": "repotool"},
		},
		"data": map[string]any{"plugin.yaml": string(pluginYAML)},
	}
	sidecar := map[string]any{
		"name":    set.PluginName,
		"image":   image,
		"command": []string{"/var/run/argocd/argocd-cmp-server"},
		"securityContext": map[string]any{
			"runAsNonRoot": true, "runAsUser": 999, "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": map[string]any{"drop": []string{"ALL"}}, "seccompProfile": map[string]any{"type": "RuntimeDefault"},
		},
		"env": env.env(),
		"volumeMounts": []map[string]any{
			{"name": "var-files", "mountPath": "/var/run/argocd"},
			{"name": "plugins", "mountPath": "/home/argocd/cmp-server/plugins"},
			{"name": set.PluginName + "-plugin", "mountPath": "/home/argocd/cmp-server/config/plugin.yaml", "subPath": "plugin.yaml"},
			{"name": set.PluginName + "-tmp", "mountPath": "/tmp"},
			{"name": set.PluginName + "-sops-age", "mountPath": "/sops/age", "readOnly": true},
		},
	}
	patch := map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": "argocd-repo-server", "namespace": set.Namespace},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{sidecar},
			"volumes": []map[string]any{
				{"name": set.PluginName + "-plugin", "configMap": map[string]any{"name": set.PluginName + "-plugin"}},
				{"name": set.PluginName + "-tmp", "emptyDir": map[string]any{}},
				{"name": set.PluginName + "-sops-age", "secret": map[string]any{"secretName": set.PluginName + "-sops-age"}},
			},
		}}},
	}
	docs := []any{cm, patch}
	if len(exclusions) > 0 {
		docs = append(docs, map[string]any{
			"apiVersion": "v1",
			"kind":       "ConfigMap",
			"metadata":   map[string]any{"name": "argocd-cmd-params-cm", "namespace": set.Namespace},
			"data":       map[string]any{"reposerver.plugin.tar.exclusions": strings.Join(exclusions, ";")},
		})
	}
	var out bytes.Buffer
	out.WriteString("# Install the repotool Config Management Plugin (see docs/argocd.md).\n")
	for i, obj := range docs {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		switch i {
		case 1:
			out.WriteString("# Strategic-merge patch for argocd-repo-server: kubectl -n " + set.Namespace + " patch deployment argocd-repo-server --patch-file " +
				"<this document>\n")
		case 2:
			out.WriteString("# What the repo-server need not send the plugin (docs/argocd.md, \"Large repositories\"): " +
				"kubectl -n " + set.Namespace + " patch configmap argocd-cmd-params-cm --patch-file <this document>, " +
				"then kubectl -n " + set.Namespace + " rollout restart deployment argocd-repo-server\n")
		}
		out.WriteString("---\n")
		out.Write(data)
	}
	return out.Bytes(), nil
}

// PluginYAML returns plugin.yaml alone.
func PluginYAML(set Settings) ([]byte, error) { return yaml.Marshal(Plugin(set)) }

// TarExclusions returns the globs for Argo CD's reposerver.plugin.tar.exclusions
// (repo-server flag --plugin-tar-exclude): what the repo-server need not
// send the plugin, sorted. Argo CD matches each with path/filepath.Match
// against paths relative to the Git repository's root and skips a matched
// folder whole. They are .git and every top-level entry of the repository
// that no target reads (layout's Repo.Inputs): the generated Argo CD
// folder, documentation, CI configuration. A file render needs is never
// excluded; a later change that makes a target read an excluded folder (a
// new file:// dependency or link into it) fails that target with a
// missing-file error until the exclusions are generated again.
func TarExclusions(repo *layout.Repo) ([]string, error) {
	used := map[string]bool{}
	for _, f := range repo.Folders() {
		used[topLevel(f)] = true
	}
	for _, f := range repo.RepoFiles() {
		used[topLevel(f)] = true
	}
	for i := range repo.Targets {
		for _, p := range repo.Inputs(&repo.Targets[i]) {
			used[topLevel(p)] = true
		}
	}
	entries, err := fs.ReadDir(repo.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("list the repository: %w", err)
	}
	gitPath := cmp.Or(repo.Config.Git.Path, ".")
	names := []string{topLevel(SettingsOf(&repo.Config).OutputDir)} // generate writes it: it need not exist yet
	for _, e := range entries {
		names = append(names, e.Name())
	}
	out := []string{".git"}
	for _, n := range names {
		if !used[n] && n != ".git" && n != "." && n != ".." {
			out = append(out, path.Join(gitPath, n))
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out))), nil
}

func topLevel(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}
