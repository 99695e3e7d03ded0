// Package render renders a repository's targets the way `helm template`
// does, in process and without writing anything to disk.
//
// For each target (a namespace's chart on one cluster) a Renderer:
//
//   - loads the chart from the repository's file system, once per run,
//     following symbolic links only inside the repository, honouring
//     .helmignore, and finding file:// dependency cycles before loading;
//   - resolves dependencies: file:// charts, charts vendored under charts/,
//     and remote ones through a content-addressed cache verified against
//     repotool.sum or the chart repository's index (offline by default);
//   - merges the values files in layout order, decrypting .secret.yaml
//     files with SOPS in memory (Decrypter) and recording conflicts between
//     layers (Result.Conflicts) instead of letting Helm log them;
//   - runs the steps of Helm's install action in client-only mode (as
//     `helm template` does) with Helm's functions, the cluster's
//     Kubernetes version and API versions, within a timeout and output and
//     values size limits, in a goroutine that a cancelled context abandons;
//     each chart's templates are parsed once per run (internal/engine, repotool's own engine)
//     and each secret values file decrypted once per run (its plaintext
//     kept in memory, never on disk, for as long as the Renderer lives:
//     make one per run);
//   - splits and sorts the output as Helm does, parsing each document once
//     into a manifest.Object with the repository file of its template
//     (Result.Objects).
//
// Errors name repository files and lines and never quote a decrypted
// value: a failure that only the real secrets cause is reported from a
// second rendering with placeholders (see Options.Redacted and
// PlaceholderDecrypter), the same rendering that gives Result.Redacted.
//
// The package never prints and never writes through a global logger:
// debug messages go to the *slog.Logger given WithLogger (discarded by
// default), and Helm's warnings are captured as Result.Conflicts.
package render
