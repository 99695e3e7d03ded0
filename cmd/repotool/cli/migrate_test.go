package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repotool/repotool/cmd/repotool/cli"
	"github.com/repotool/repotool/internal/testing/testtool"
)

// TestMigrateCommand converts the KES objects of a repository: the dry run
// prints the diff and changes nothing, --write applies it, a second run
// has nothing to do; a refused object exits 1; --set and repotool.yaml
// fill the stores; a bad setting is a usage error.
func TestMigrateCommand(t *testing.T) {
	dir := t.TempDir()
	kes := "apiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\nmetadata:\n  name: db\nspec:\n  backendType: secretsManager\n  data:\n    - key: app/db\n      name: password\n"
	write := func(name, data string) { testtool.WriteFiles(t, dir, map[string]string{name: data}) }
	write("repotool.yaml", "migrate:\n  kesToEso:\n    aws.region: eu-west-1\n")
	write("bootstrap/db.yaml", "# the app's database\n"+kes)
	out, code := runCLI(t, "migrate", "kes-to-eso", dir)
	if code != 0 || !strings.Contains(out, "+apiVersion: external-secrets.io/v1") || !strings.Contains(out, "+      region: eu-west-1") || !strings.Contains(out, "dry run: 2 file(s) would change") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "bootstrap/db.yaml")); !strings.Contains(string(data), "kubernetes-client.io") {
		t.Error("the dry run wrote")
	}
	if out, code := runCLI(t, "migrate", "kes-to-eso", dir, "--set", "aws.region=us-east-2"); code != 0 || !strings.Contains(out, "+      region: us-east-2") {
		t.Errorf("--set over repotool.yaml: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, "migrate", "kes-to-eso", dir, "--write"); code != 0 || !strings.Contains(out, "wrote 2 file(s)") {
		t.Errorf("--write: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "bootstrap/db.yaml"))
	if !strings.HasPrefix(string(data), "# the app's database\napiVersion: external-secrets.io/v1\n") {
		t.Errorf("after --write:\n%s", data)
	}
	if out, code := runCLI(t, "migrate", "kes-to-eso", dir); code != 0 || !strings.Contains(out, "nothing to change") {
		t.Errorf("a second run: exit %d\n%s", code, out)
	}
	write("bootstrap/odd.yaml", strings.Replace(kes, "secretsManager", "keyWhisperer", 1))
	if out, code := runCLI(t, "migrate", "kes-to-eso", dir); code != cli.ExitFindings || !strings.Contains(out, "bootstrap/odd.yaml:6 db: backendType \"keyWhisperer\"") {
		t.Errorf("a refused object: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"--set", "aws.regoin=x"}, {"--set", "novalue"}, {"--store-kind", "Vault"}, {"--switch", "--target-suffix", "-eso"}} {
		if out, code := runCLI(t, append([]string{"migrate", "kes-to-eso", dir}, args...)...); code != cli.ExitError {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
}
