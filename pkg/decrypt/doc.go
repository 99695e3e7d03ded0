// Package decrypt decrypts SOPS-encrypted YAML in memory: the one package of
// the library that links SOPS and its key-management clients (age, GnuPG,
// AWS, GCP and Azure KMS, Vault). Nothing decrypted is written to disk,
// and no error quotes decrypted content or key material. EncryptSecret
// encrypts a Secret for hydrate, for the recipients CreationRule finds;
// sops reads creation rules from a file only, so CreationRule writes a
// temporary copy of the .sops.yaml it is given (patterns and public
// keys), and removes it.
//
// SOPS finds keys as the sops CLI does (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY,
// the default age key file, GnuPG, cloud credentials), or, for age, from
// identities given in memory (Options.AgeIdentities), so that a program
// need not put a private key in its environment.
//
// Inside: SOPS decryption in memory, and `EncryptSecret` (a Secret's data and
// stringData encrypted for a `.sops.yaml` rule found by `CreationRule`, for
// hydrate), the one package that links SOPS and its KMS clients: `SOPS` (age
// identities from where the sops CLI finds them, read once, or given in memory
// through `NewSOPS`; `DigestKey` derives a key for keyed digests from a file's
// data key, never returning the data key), `*decrypt.Error` in plain words,
// never quoting content or keys. Every key SOPS needs goes through one key
// service (`policy.go`): age in process (`agekeys.go`), every other kind (key
// services, PGP, age plugins) only when the operator's `sopsfile.KeyPolicy`
// allows it, within `KeyTimeout`; a refused key is never contacted, and a
// `.sops.yaml` rule is admitted by the same policy (see docs/security.md). An
// allowed Vault is used with a client that sends nothing to another scheme or
// host (`vault.go`: Vault's own client follows one redirect with the token).
package decrypt
