package lint

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

var rulePlaintextSecret = &Rule{
	Rule: finding.Rule{
		ID:      "plaintext-secret",
		Summary: "A secret is committed, or rendered, in plain text.",
		Remediation: "Move the value into a SOPS-encrypted .secret.yaml values file (or an ExternalSecret), encrypt the file with sops, and rotate any " +
			"secret that was pushed in plain text.",
		Severity: SeverityError,
		Description: "Finds secrets that escaped encryption: a `kind: Secret` whose `data` or `stringData` values are committed in plain text (in a manifest " +
			"file, or rendered from values that did not come from a `.secret.yaml` file: the finding points at the values file and line the value " +
			"came from, or at the chart template); a `.secret.yaml` file, or any file a `.sops.yaml` creation rule says must be encrypted, that is " +
			"not SOPS-encrypted; values in an encrypted file left unencrypted although the file's `encrypted_regex`/`unencrypted_regex`/suffix " +
			"settings say they must be encrypted (typically added by hand after encryption); and `ENC[...]` strings in rendered output (a value " +
			"from an encrypted file that was never decrypted). Findings never print the secret value.",
		Bad: Example{File: "clusters/prod/shop/prod-values-shop.yaml", Content: `# rendered into a Secret by the chart: committed in plain text
secrets:
  db:
    PASSWORD: hunter2
`},
		Good: Example{File: "clusters/prod/shop/prod-values-shop.secret.yaml", Content: `# encrypted with: sops --encrypt --in-place prod-values-shop.secret.yaml
secrets:
  db:
    PASSWORD: ENC[AES256_GCM,data:mYqs9xQ=,iv:...,tag:...,type:str]
sops:
  age:
    - recipient: age1...
  mac: ENC[AES256_GCM,data:...]
  version: 3.13.3
`},
	},
	check: func(in *input, report func(Finding)) {
		checkPlaintext(in.repo, in.results, in.objects, in.at, report)
	},
	facts: []*fact{factSOPSValue},
}

// factSOPSValue is what plaintext-secret keeps of the objects a run lets
// go: whether the rendered text holds a SOPS-encrypted value (ENC[...]), a
// value that came from an encrypted file that was not decrypted.
var factSOPSValue = &fact{of: func(o *manifest.Object) []string {
	if bytes.Contains(textOf(o), []byte(sopsValueMark)) {
		return []string{sopsValueMark}
	}
	return nil
}}

// sopsValueMark begins every SOPS-encrypted value.
const sopsValueMark = "ENC[AES256_GCM,"

func checkPlaintext(r *repoFacts, results []*render.Result, objs *objects, at *positions, report func(Finding)) {
	layoutSecrets := map[string]bool{}
	for _, d := range r.Repo.Diagnostics {
		if d.Code == layout.CodeSecretNotEncrypted {
			layoutSecrets[d.File] = true
			report(Finding{File: d.File, Line: d.Line, Message: d.Message + "; " + d.Hint})
		}
	}
	if r.sopsErr != nil {
		report(Finding{File: sopsfile.ConfigFile,
			Message: "cannot read .sops.yaml, so files its rules say must be encrypted cannot be checked: " + r.sopsErr.Error()})
	}
	suffix := ".secret.yaml"
	if ss := r.Repo.Config.Layout.SecretSuffixes; len(ss) > 0 {
		suffix = ss[0]
	}
	if r.fileChecks() {
		checkEncryptedFiles(r, layoutSecrets, report)
	}
	raw := r.rawAlone()
	for i := range raw {
		checkRawSecret(&raw[i], report)
	}
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		for i := range res.Objects {
			o := &res.Objects[i]
			if o.IsSecret() {
				checkRenderedSecret(at, suffix, res, o, report)
			}
			if objs.fact(o, factSOPSValue) != nil {
				f := Finding{Object: o.ID(), Targets: []string{res.Target.Name()},
					Message: "the rendered object holds a SOPS-encrypted value (ENC[...]): a value came from an encrypted file that was not decrypted"}
				if file, line := findInValues(at, &res.Target, scalarMatching(sopsfile.IsEncryptedValue)); file != "" {
					f.File, f.Line, f.Template = file, line, o.Source.String()
					f.Message += "; rename " + file + " to end in " + suffix + " so that it is decrypted"
				} else {
					f.File = o.Source.String()
				}
				report(f)
			}
		}
	}
}

// checkEncryptedFiles checks every YAML file that must be encrypted (by
// name or .sops.yaml rule) and every file that is.
func checkEncryptedFiles(r *repoFacts, layoutSecrets map[string]bool, report func(Finding)) {
	secretFiles := map[string]bool{}
	for _, t := range r.Repo.Targets {
		for _, v := range t.Values {
			if v.Secret {
				secretFiles[v.Path] = true
			}
		}
	}
	r.scan(manifestExts, func(p string) {
		if p == sopsfile.ConfigFile {
			return
		}
		rule := r.Sops.For(p)
		mustEncrypt := secretFiles[p] || (rule != nil && rule.PathRegex != "")
		f := r.repoFile(p)
		md := f.Sops() // the file's facts, learnt once
		if md == nil && !mustEncrypt {
			return // neither encrypted nor bound to be: nothing to check (and no parse again for its error)
		}
		if f.Err() != nil {
			return
		}
		if md == nil {
			if data, _ := f.Data(); data == nil {
				return
			}
			if mustEncrypt && !layoutSecrets[p] {
				line := 0
				if rule != nil {
					line = rule.Line
				}
				report(Finding{File: p, Message: fmt.Sprintf("the file is not SOPS-encrypted, but the .sops.yaml creation rule at line %d (path_regex %q) covers "+
					"it; encrypt it with `sops --encrypt --in-place %s`", line, rule.PathRegex, p)})
			}
			return
		}
		if docs, _ := f.Docs(); len(docs) > 0 {
			checkLeaves(p, docs[0], md, report)
		}
	})
}

// checkLeaves reports values that the file's own sops settings say must be
// encrypted but are not.
func checkLeaves(file string, root *yaml.Node, md *sopsfile.Metadata, report func(Finding)) {
	encRE, _ := compileOptional(md.EncryptedRegex)
	unencRE, _ := compileOptional(md.UnencryptedRegex)
	unencSuffix := md.UnencryptedSuffix
	if md.EncryptedRegex == "" && md.UnencryptedRegex == "" && md.EncryptedSuffix == "" && unencSuffix == "" {
		unencSuffix = "_unencrypted" // sops' default
	}
	// encrypted reports whether a key's subtree is encrypted, given its
	// parent's state (encrypted_regex selects subtrees to encrypt).
	encrypted := func(key string, parent bool) bool {
		switch {
		case unencSuffix != "" && strings.HasSuffix(key, unencSuffix):
			return false
		case md.EncryptedSuffix != "":
			return parent || strings.HasSuffix(key, md.EncryptedSuffix)
		case unencRE != nil:
			return parent && !unencRE.MatchString(key)
		case encRE != nil:
			return parent || encRE.MatchString(key)
		}
		return parent
	}
	// Without selectors everything is encrypted; with encrypted_* selectors
	// only what they select.
	rootState := md.EncryptedRegex == "" && md.EncryptedSuffix == ""
	var walk func(n *yaml.Node, keyPath string, enc bool)
	walk = func(n *yaml.Node, keyPath string, enc bool) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if keyPath == "" && sopsfile.IsMetadata(0, k) {
					continue
				}
				walk(n.Content[i+1], joinKey(keyPath, k), encrypted(k, enc))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", keyPath, i), enc)
			}
		case yaml.ScalarNode:
			if enc && n.Tag != "!!null" && !sopsfile.IsEncryptedValue(n.Value) {
				report(Finding{File: file, Line: n.Line, Column: n.Column,
					Message: fmt.Sprintf("the value of %q is not encrypted, although the file's sops settings say it must be (was it added after encryption?); edit "+
						"the file with `sops edit %s`", keyPath, file)})
			}
		}
	}
	walk(root, "", rootState)
}

func joinKey(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func compileOptional(re string) (*regexp.Regexp, error) {
	if re == "" {
		return nil, nil
	}
	return regexp.Compile(re)
}

// checkRawSecret reports plain-text values of a Secret manifest file.
func checkRawSecret(o *rawObject, report func(Finding)) {
	if o.Kind != "Secret" || o.APIVersion != "v1" || o.Encrypted {
		return
	}
	for _, field := range []string{"data", "stringData"} {
		m, _ := yamlpos.Lookup(o.Node, field)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if v.Kind == yaml.ScalarNode && v.Value != "" && v.Tag != "!!null" {
				report(Finding{File: o.File, Line: v.Line, Column: v.Column, Object: o.ID(),
					Message: fmt.Sprintf("Secret %s: %s key %q is committed in plain text", secretName(o.Namespace, o.Name), field, k.Value)})
			}
		}
	}
}

// checkRenderedSecret reports Secret values that did not come from
// decrypted secret values.
func checkRenderedSecret(at *positions, suffix string, res *render.Result, o *manifest.Object, report func(Finding)) {
	for _, field := range []string{"data", "stringData"} {
		m, ok := contentOf(o)[field].(map[string]any)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			raw, ok := m[k].(string)
			if !ok || raw == "" {
				continue
			}
			value := raw
			if field == "data" {
				if dec, err := base64.StdEncoding.DecodeString(raw); err == nil {
					value = string(dec)
				}
			}
			if value == "" || res.FromSecrets(value) || res.FromSecrets(raw) {
				continue
			}
			f := Finding{Object: o.ID(), Targets: []string{res.Target.Name()},
				Message: fmt.Sprintf("Secret %s: %s key %q is rendered from a plain-text value, not from a %s file", secretName(o.Namespace, o.Name), field, k,
					suffix)}
			if file, line := findInValues(at, &res.Target, scalarMatching(func(v string) bool { return v == value || v == raw })); file != "" {
				f.File, f.Line, f.Template = file, line, o.Source.String()
				f.Message += fmt.Sprintf(" (the value comes from %s:%d)", file, line)
			} else {
				f.File = o.Source.String()
				f.Line = at.objectLine(o, k+":")
				f.Message += " (the value is in the chart template, or computed there)"
			}
			report(f)
		}
	}
}

func secretName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
