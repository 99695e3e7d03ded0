package testtool

import (
	"os"
	"path/filepath"
	"testing"
)

// CleanEnv returns an environment for reference CLIs with HOME and the
// helm and XDG folders pointing inside tmp, so nothing on the machine leaks
// into a comparison.
func CleanEnv(tmp string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"),
		"XDG_DATA_HOME=" + filepath.Join(tmp, "data"),
		"HELM_CACHE_HOME=" + filepath.Join(tmp, "helm-cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(tmp, "helm-config"),
		"HELM_DATA_HOME=" + filepath.Join(tmp, "helm-data"),
	}
	return append(env, extra...)
}

// IsolateSOPS hides every SOPS key the machine may have: HOME, the XDG
// config folder and GNUPGHOME point into a temporary folder, and the SOPS_*
// key variables are unset (not set empty: sops 3.13 crashes on an empty
// SOPS_AGE_KEY_CMD). Everything is restored when the test ends.
func IsolateSOPS(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GNUPGHOME", filepath.Join(home, ".gnupg"))
	for _, k := range []string{"SOPS_AGE_KEY_FILE", "SOPS_AGE_KEY", "SOPS_AGE_KEY_CMD", "SOPS_AGE_SSH_PRIVATE_KEY_FILE", "SOPS_AGE_SSH_PRIVATE_KEY_CMD",
		"REPOTOOL_ALLOW_KEYS", "VAULT_TOKEN"} {
		t.Setenv(k, "") // registers the restore
		os.Unsetenv(k)
	}
}

// UseTestKey isolates the SOPS environment and points SOPS_AGE_KEY_FILE at
// testdata/age-TEST-ONLY.key, the key the fixtures are encrypted for.
func UseTestKey(t testing.TB) {
	t.Helper()
	IsolateSOPS(t)
	t.Setenv("SOPS_AGE_KEY_FILE", TestKey(t))
}

// TestKey returns the absolute path of the test-only age key.
func TestKey(t testing.TB) string {
	return filepath.Join(moduleRoot(t), "testdata", "age-TEST-ONLY.key")
}
