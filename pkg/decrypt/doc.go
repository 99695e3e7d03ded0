// Package decrypt decrypts SOPS-encrypted YAML in memory: the one package of
// the library that links SOPS and its key-management clients (age, GnuPG,
// AWS, GCP and Azure KMS, Vault). Nothing is written to disk, and no error
// quotes decrypted content or key material.
//
// SOPS finds keys as the sops CLI does (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY,
// the default age key file, GnuPG, cloud credentials), or, for age, from
// identities given in memory (Options.AgeIdentities), so that a program
// need not put a private key in its environment.
package decrypt
