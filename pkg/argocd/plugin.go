package argocd

import (
	"bytes"

	"sigs.k8s.io/yaml"
)

// Plugin returns the Config Management Plugin configuration (plugin.yaml,
// sidecar format): generate runs `repotool render --argocd`, and discovery
// runs `repotool render --argocd --discover`, which claims an application
// only when its source path is a target of a repotool layout.
func Plugin(set Settings) *ConfigManagementPlugin {
	return &ConfigManagementPlugin{
		TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: "ConfigManagementPlugin"},
		Metadata: ObjectMeta{Name: set.PluginName},
		Spec: PluginSpec{
			Generate: PluginCommand{Command: []string{"repotool", "render", "--argocd"}},
			Discover: &PluginDiscover{Find: &PluginFind{Command: []string{"repotool", "render", "--argocd", "--discover"}}},
		},
	}
}

// PluginInstall returns a YAML stream that installs the plugin in Argo CD's
// namespace: a ConfigMap holding plugin.yaml, and a strategic-merge patch
// for the argocd-repo-server Deployment that adds the repotool sidecar
// (image: a container image holding the repotool binary). SOPS keys come
// from the Secret repotool-sops-age (key keys.txt), mounted read-only.
func PluginInstall(set Settings, image string) ([]byte, error) {
	pluginYAML, err := PluginYAML(set)
	if err != nil {
		return nil, err
	}
	cm := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": set.PluginName + "-plugin", "namespace": set.Namespace, "labels": map[string]any{"app.kubernetes.io/managed-by": "repotool"}},
		"data":       map[string]any{"plugin.yaml": string(pluginYAML)},
	}
	sidecar := map[string]any{
		"name":    set.PluginName,
		"image":   image,
		"command": []string{"/var/run/argocd/argocd-cmp-server"},
		"securityContext": map[string]any{
			"runAsNonRoot": true, "runAsUser": 999, "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": map[string]any{"drop": []string{"ALL"}}, "seccompProfile": map[string]any{"type": "RuntimeDefault"},
		},
		"env": []map[string]any{
			{"name": "SOPS_AGE_KEY_FILE", "value": "/sops/age/keys.txt"},
			{"name": "REPOTOOL_CACHE_DIR", "value": "/tmp/repotool-cache"},
			{"name": "HOME", "value": "/tmp"},
		},
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
	var out bytes.Buffer
	out.WriteString("# Install the repotool Config Management Plugin (see docs/argocd.md).\n")
	for i, obj := range []any{cm, patch} {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i == 1 {
			out.WriteString("# Strategic-merge patch for argocd-repo-server: kubectl -n " + set.Namespace + " patch deployment argocd-repo-server --patch-file <this document>\n")
		}
		out.WriteString("---\n")
		out.Write(data)
	}
	return out.Bytes(), nil
}

// PluginYAML returns plugin.yaml alone.
func PluginYAML(set Settings) ([]byte, error) { return yaml.Marshal(Plugin(set)) }
