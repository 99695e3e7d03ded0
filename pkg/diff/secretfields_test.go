package diff_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/pkg/diff"
	"github.com/repotool/repotool/pkg/manifest"
)

// TestSecretFieldKeys: a changed secret value is named by its field, and a
// map whose keys a secret value made by the map alone: its keys are
// secret too.
func TestSecretFieldKeys(t *testing.T) {
	obj := func(data map[string]any) *manifest.Object {
		return &manifest.Object{Content: map[string]any{"kind": "ConfigMap", "data": data}}
	}
	got := diff.SecretFields(
		obj(map[string]any{"url": "https://old-secret@x", "s3cr3t-key-one": "v"}),
		obj(map[string]any{"url": "https://new-secret@x", "s3cr3t-key-two": "v"}),
		obj(map[string]any{"url": "https://placeholder@x", "placeholder": "v"}),
		obj(map[string]any{"url": "https://placeholder@x", "placeholder": "v"}))
	if !slices.Equal(got, []string{"/data"}) || strings.Contains(strings.Join(got, ""), "s3cr3t") {
		t.Errorf("fields: %v", got)
	}
	got = diff.SecretFields(
		obj(map[string]any{"url": "https://old-secret@x"}), obj(map[string]any{"url": "https://new-secret@x"}),
		obj(map[string]any{"url": "https://placeholder@x"}), obj(map[string]any{"url": "https://placeholder@x"}))
	if !slices.Equal(got, []string{"/data/url"}) {
		t.Errorf("fields: %v", got)
	}
}
