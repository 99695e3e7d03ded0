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
package decrypt
