// Package sopsfile recognises SOPS-encrypted YAML documents without decrypting
// them.
//
// It owns the question "is this file encrypted, and how": the presence and
// shape of the top-level sops metadata block and which leaf values still hold
// plaintext. It does not decrypt: decryption (and the SOPS library with its
// key services) lives in package render, so that tools which only inspect a
// repository do not link the cloud KMS clients.
//
// Inside: recognising SOPS-encrypted YAML (metadata, `ENC[...]` values)
// without decrypting; no SOPS library import. The master keys a file's
// metadata names (`Keys`, `Metadata.Keys`) and the operator's `KeyPolicy` over
// them (`keys.go`, parsed from `--allow-key`/`REPOTOOL_ALLOW_KEYS` entries),
// which decrypt enforces and lint's `sops-key-not-allowed` reports.
package sopsfile
