package testtool

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"filippo.io/age"
	"filippo.io/age/armor"
	yaml "go.yaml.in/yaml/v3"
)

// Listener is a loopback HTTP server standing for a key service that a
// hostile file names: it records every request (method, path and the
// Vault token header) and answers with handle, or 403 when handle is nil.
type Listener struct {
	URL string

	mu   sync.Mutex
	reqs []string
}

// NewListener starts a Listener on 127.0.0.1, closed when the test ends.
func NewListener(t testing.TB, handle http.HandlerFunc) *Listener {
	t.Helper()
	l := &Listener{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r.Method+" "+r.URL.Path+" token="+r.Header.Get("X-Vault-Token"))
		l.mu.Unlock()
		if handle == nil {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	l.URL = srv.URL
	return l
}

// Requests are the requests received so far.
func (l *Listener) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// VaultTransit is a fake Vault transit endpoint for a Listener: a
// decrypt request with the token whose ciphertext is "vault:v1:<base64 of
// a data key>" gets that key back; anything else is refused.
func VaultTransit(token string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Ciphertext string }
		if r.Method != http.MethodPut && r.Method != http.MethodPost || !strings.Contains(r.URL.Path, "/decrypt/") ||
			json.NewDecoder(r.Body).Decode(&body) != nil || r.Header.Get("X-Vault-Token") != token {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]string{"plaintext": strings.TrimPrefix(body.Ciphertext, "vault:v1:")}})
	}
}

// FakePrograms puts programs with the given names first on PATH: each,
// when run, appends its name to a log and fails. ran returns the names of
// those that ran, in order. HOME is a fresh folder too, so that a program
// that would create files there (gpg's ~/.gnupg) can be seen doing so.
func FakePrograms(t testing.TB, names ...string) (ran func() []string, home string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "ran.log")
	for _, n := range names {
		script := "#!/bin/sh\necho " + n + " >> '" + log + "'\nexit 1\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	home = t.TempDir()
	t.Setenv("HOME", home)
	return func() []string {
		data, err := os.ReadFile(log)
		if err != nil {
			return nil
		}
		return strings.Fields(string(data))
	}, home
}

// SOPSWithKeys returns data, a SOPS-encrypted YAML file, with master keys
// added to its sops block (kind, as the block names it: hc_vault, pgp,
// kms, gcp_kms, azure_kv, age, to entries of fields) and, with dropAge,
// its age keys removed. Key metadata is outside the file's MAC: the file
// stays valid, as a hostile change would leave it.
func SOPSWithKeys(t testing.TB, data []byte, add map[string][]map[string]string, dropAge bool) []byte {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	var block *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "sops" {
			block = root.Content[i+1]
		}
	}
	if block == nil {
		t.Fatal("no sops block")
	}
	if dropAge {
		for i := 0; i+1 < len(block.Content); i += 2 {
			if block.Content[i].Value == "age" {
				block.Content = slices.Delete(block.Content, i, i+2)
				break
			}
		}
	}
	kinds := make([]string, 0, len(add))
	for k := range add {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, kind := range kinds {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, entry := range add[kind] {
			m := &yaml.Node{Kind: yaml.MappingNode}
			fields := make([]string, 0, len(entry))
			for f := range entry {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			for _, f := range fields {
				style := yaml.DoubleQuotedStyle // a string, as sops writes created_at
				if strings.Contains(entry[f], "\n") {
					style = yaml.LiteralStyle
				}
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f}, &yaml.Node{Kind: yaml.ScalarNode, Value: entry[f], Style: style})
			}
			list.Content = append(list.Content, m)
		}
		// First in the block: SOPS tries a group's keys in this order.
		block.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Value: kind}, list}, block.Content...)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(4)
	if err := enc.Encode(&doc); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// SOPSDataKey is the data key of data, a SOPS file encrypted for the
// test-only age key: its first age entry's enc opened with that key, as a
// key service would return it.
func SOPSDataKey(t testing.TB, data []byte) []byte {
	t.Helper()
	var doc struct {
		SOPS struct {
			Age []struct{ Enc string } `yaml:"age"`
		} `yaml:"sops"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.SOPS.Age) == 0 {
		t.Fatalf("no age key in the file: %v", err)
	}
	keys, err := os.ReadFile(TestKey(t))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := age.ParseIdentities(bytes.NewReader(keys))
	if err != nil {
		t.Fatal(err)
	}
	r, err := age.Decrypt(armor.NewReader(strings.NewReader(doc.SOPS.Age[0].Enc)), ids...)
	if err != nil {
		t.Fatal(err)
	}
	key, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
