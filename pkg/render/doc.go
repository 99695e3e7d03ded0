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
//
// Inside: rendering targets as `helm template` does. Inside, a rendering goes
// one way through four rooms:
//
//  1. Chart supply (`internal/charts`, one type: `Supply.Load(ctx, dir)`
//     returns the chart with its origins and its lock state, and one error):
//     a chart folder read from the repository `fs.FS` as Helm's loader reads
//     one (`.helmignore`, symlink containment, size limits), once per run;
//     `file://` cycles found before loading; dependencies attached (`file://`
//     through `layout.ChartFileDependencies` and `layout.FileDependency`,
//     vendored, remote from a content-addressed cache verified against
//     `repotool.sum` or the chart repository's index); Chart.lock checked. Of
//     chart loading, `Renderer` holds only the `Supply`; beside it, per run,
//     the charts' declared values and template text (`internal/once`: one
//     value per key, computed once however many goroutines ask), the compiled
//     values schemas, the parsed documents and the decrypted values files (in
//     memory; `RenderEach` and `RenderEachByChart` let a file's plaintext go
//     after the last target that reads it, as they let a chart go). A chart
//     repository's index.yaml is read here (`index.go`: the versions Helm
//     keeps, newest first, Helm's choice of version and its URL resolution;
//     `TestIndexLikeHelm` compares with Helm's repo package on Helm's own
//     index fixtures): Helm's repo package links its Kubernetes client,
//     kubectl, kustomize and the standard library's `plugin`, which would
//     make every command's binary larger and slower to start
//     (`TestBinaryWeight`).
//
//  2. Values (`values.go`, `secrets.go`, `conflicts.go`, `effective.go`): the
//     target's values files read from the run's file index
//     (`Renderer.valuesFile`, with the size limit), secret ones decrypted in
//     memory (each once per run, never on disk), merged; conflicts located on
//     the index's parse; the analyses `EffectiveValues`, `ChartDefaults`,
//     `TemplatesMention` and `Without` (`EffectiveValues` parses each
//     chart's values.yaml once for the targets of that chart that ask in
//     turn, the last 64 kept: `valuesdocs.go`).
//
//  3. Engine (`helmtemplate.go`): Helm's client-only install steps (release,
//     capabilities, values checked against values.schema.json, each schema
//     compiled once: `valueschema.go`), then `internal/engine`, within a
//     timeout and size limits.
//
//  4. Documents (`sortdocs.go`, `doccache.go`, `objects.go`, `redact.go`,
//     `secretfields.go`, `safeerror.go`): the output split and sorted as
//     `releaseutil.SortManifests` does, from the one parse
//     (`manifest.Decode`, through a cache that parses a document many
//     renderings print alike once, keeping what the charts in hand print in
//     two generations within its budget) that becomes the objects with their
//     source files; redaction by a second rendering with placeholders (which
//     also gives `Result.SecretFields`); error messages with repository
//     locations and no secret in them.
//
// `Options.Helm` (or repotool.yaml's `render.helm`) chooses whose `helm
// template` the bytes match: Helm 3.22 (default) or Helm 4.3, whose
// differences live in `helm4.go` (and `internal/charts/values4.go` for chart
// values), and `internal/util` holds the one type Helm 4's messages name;
// `internal/once` computes one value per key once, however many renderings ask
// at the same time (a chart loaded once per run, a chart repository's index
// downloaded once). `RenderEach` (`each.go`) hands renderings over in target
// order as they are made (a bounded window ahead), `RenderEachByChart` in
// chart order (each chart's targets one after another), and both let each
// chart go after the last of their targets that renders it (`ReleaseChart`:
// the loaded chart, its declared values and its templates' text; a later
// rendering loads it again), so that a run holds the charts in use, not every
// chart it loaded, and forget the file index's entries every 256 renderings
// (`layout.Files.Forget`: the values files read); a rendering kept after that
// holds its target, not its chart (its rendering with placeholders loads the
// chart again if asked). `Guard` (`guard.go`) is the second line of every
// message made from rendered data: the values decrypted for one or more
// renderings (lint: a cluster's) in every form a message can carry them (any
// case, base64 and decoded, pieces of eight characters); the first line is the
// stage's own, which shows static words for an evaluation that read secret
// data. A values schema's `$ref` reads only the chart's own files, a remote
// one only when `Options.RemoteSchemaRefs` (`valueschema.go`). `Renderer.Hold`
// (`held.go`) gives what a caller that keeps many renderings for a while holds
// of one besides its objects: a few bytes for most, and the decrypted strings
// it knows (`FromSecrets`) encoded apart, for the caller to hold with its
// decrypted values; `Unhold` makes the `Result` again from them, its target
// and its objects, its rendering with placeholders made on demand as `Render`
// makes it (`Renderer.placeholders`, shared). `WriteDir` (`writedir.go`)
// writes each rendering to `<cluster>/<namespace>.yaml` as it comes, in chart
// order, removing the file of a target that failed (`render --out-dir`);
// hydrate renders in chart order too. `SharingWith` shares the compiled
// schemas, the chart repositories' indexes and the parsed documents between
// the two renderers of `diff`; `ReleaseDocuments` lets the parsed documents go
// for a caller done rendering in bulk (lint, once its renderings are stored).
// `Dependencies` (`dependencies.go`, with `internal/charts/fetch.go`) is
// `repotool deps`: the charts' remote dependencies fetched through the same
// supply, cache and verification, the pins for `repotool.sum`, and, on update,
// the `Chart.lock` helm would write.
package render
