package decrypt

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	sopsconfig "github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keyservice"
	"github.com/getsops/sops/v3/version"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// SecretFields is the encrypted_regex of EncryptSecret: a Secret's data
// and stringData, and nothing else of the object.
const SecretFields = "^(data|stringData)$"

// Rule is the recipients of a .sops.yaml creation rule, for one path,
// with the key policy they were admitted by.
type Rule struct {
	path string
	cfg  *sopsconfig.Config
	enc  *SOPS
}

// CreationRule returns the creation rule of sopsConfig (the content of a
// .sops.yaml) that matches path, with its recipients. sops reads rules
// from a file only: a copy of sopsConfig (public keys and patterns, no
// secret) is written to a temporary file and removed. The .sops.yaml is
// repository content: a recipient that is not a plain age recipient (a
// key service, a PGP key, an age plugin) must be allowed by keys, or the
// rule is refused, naming it, before anything is contacted or run.
func CreationRule(sopsConfig []byte, path string, keys sopsfile.KeyPolicy) (*Rule, error) {
	cfg, err := creationRule(sopsConfig, path)
	if err != nil {
		return nil, err
	}
	enc := &SOPS{policy: keys}
	ks := enc.newKeyService(context.Background())
	for _, g := range cfg.KeyGroups {
		for _, mk := range g {
			_ = ks.admit(keyOf(ptr(keyservice.KeyFromMasterKey(mk))))
		}
	}
	if len(ks.refused) > 0 {
		e := &Error{File: sopsfile.ConfigFile}
		ks.explain(e)
		return nil, fmt.Errorf("the creation rule for %s: %s; %s", path, e.Reason, e.Hint)
	}
	return &Rule{path: path, cfg: cfg, enc: enc}, nil
}

func ptr[T any](v T) *T { return &v }

// EncryptSecret returns doc, one YAML document (a Kubernetes Secret), with
// the values under its data and stringData SOPS-encrypted for the
// recipients of rule, and its own sops metadata: the form in which Flux's
// kustomize-controller and KSOPS decrypt a Secret. The rest of the object
// stays readable, its keys included. Encryption is randomised: each call
// gives other bytes. Only public keys are needed for age and GnuPG
// recipients; cloud KMS recipients need their credentials, as with the
// sops CLI. Errors never quote doc.
func EncryptSecret(rule *Rule, doc []byte) ([]byte, error) {
	stores := sopsconfig.NewStoresConfig()
	stores.YAML.Indent = 2 // as Helm's YAML and the rest of the manifest (sops' own default is 4)
	store := common.StoreForFormat(formats.Yaml, stores)
	branches, err := store.LoadPlainFile(doc)
	if err != nil {
		return nil, errors.New("the Secret is not a YAML document sops can read")
	}
	tree := sops.Tree{Branches: branches, Metadata: sops.Metadata{
		KeyGroups:       rule.cfg.KeyGroups,
		ShamirThreshold: rule.cfg.ShamirThreshold,
		EncryptedRegex:  SecretFields,
		Version:         version.Version,
	}}
	key, errs := tree.GenerateDataKeyWithKeyServices([]keyservice.KeyServiceClient{rule.enc.newKeyService(context.Background())})
	if len(errs) > 0 {
		return nil, fmt.Errorf("cannot encrypt the data key for the recipients of the .sops.yaml rule for %s: %w", rule.path, errors.Join(errs...))
	}
	if err := common.EncryptTree(common.EncryptTreeOpts{Tree: &tree, Cipher: aes.NewCipher(), DataKey: key}); err != nil {
		return nil, fmt.Errorf("cannot encrypt the Secret: %s", yamlpos.Redact(err.Error()))
	}
	out, err := store.EmitEncryptedFile(tree)
	if err != nil {
		return nil, errors.New("cannot write the encrypted Secret")
	}
	return out, nil
}

// creationRule is the creation rule of sopsConfig for path: chosen as
// sopsfile.CreationRules.For chooses (the one matcher lint shares), and
// read by SOPS, which turns its recipients into key groups. sops reads
// rules from a file only: that one rule (public keys, no secret) is
// written to a temporary file and removed.
func creationRule(sopsConfig []byte, path string) (*sopsconfig.Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(sopsConfig, &doc); err != nil {
		return nil, fmt.Errorf("%s does not parse: %s", sopsfile.ConfigFile, yamlpos.Redact(err.Error()))
	}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = &doc
	}
	rules, err := sopsfile.ParseCreationRules(root)
	if err != nil {
		return nil, err
	}
	r := rules.For(path)
	if r == nil {
		return nil, fmt.Errorf(".sops.yaml has no creation rule for %s: add one whose path_regex matches it, with the recipients that decrypt it in the "+
			"cluster", path)
	}
	var chosen map[string]any // decoded: the aliases of the file's anchors (keys: &admin ...) resolved
	if err := r.Node.Decode(&chosen); err != nil {
		return nil, fmt.Errorf("the .sops.yaml creation rule at line %d does not parse: %s", r.Line, yamlpos.Redact(err.Error()))
	}
	delete(chosen, "path_regex") // chosen already
	one, err := yaml.Marshal(map[string]any{"creation_rules": []any{chosen}})
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", ".sops-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(one)
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil, err
	}
	rule, err := sopsconfig.LoadCreationRuleForFile(f.Name(), path, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the .sops.yaml creation rule at line %d, for %s, cannot be read (%v): give it the recipients that decrypt it in the cluster",
			r.Line, path, err)
	case rule == nil || len(rule.KeyGroups) == 0:
		return nil, fmt.Errorf(".sops.yaml has no creation rule with recipients for %s: add one whose path_regex matches it, with the recipients that "+
			"decrypt it in the cluster", path)
	}
	return rule, nil
}
