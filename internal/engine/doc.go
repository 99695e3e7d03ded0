// Package engine runs a Helm chart's templates the way `helm template`
// does, and parses each chart's templates once for all the renderings of a
// run.
//
// It is repotool's own engine, built on what other projects export: Go's
// text/template executes the templates, sprig (github.com/Masterminds/sprig)
// supplies the general function library, and Helm's exported packages
// (chart, chartutil) supply the chart model and the values. What Helm adds
// on top of sprig is written here from Helm's documented behaviour:
//
//   - toYaml, toYamlPretty, fromYaml, fromYamlArray, toJson, fromJson,
//     fromJsonArray, toToml, fromToml (funcs_data.go);
//   - include and tpl, which run other templates, with include's limit on
//     nesting a name in itself (run.go), and repotool's on nesting tpl
//     and any calls at all (depth.go);
//   - required and fail, whose messages Helm reports without the template
//     engine's "error calling" chain; lookup, which returns nothing, and
//     getHostByName, which returns "", as both do in `helm template`;
//   - .Files (Get, GetBytes, Glob, Lines, AsConfig, AsSecrets), .Chart,
//     .Release, .Capabilities, .Template, .Subcharts, and .Values scoped to
//     each subchart (scope.go).
//
// Messages are Helm's: a parse failure reads "parse error at (file:line):
// ...", a failed required or fail reads "execution error at (file:line:col):
// message", any other execution failure is text/template's own error, and
// a panic inside a function reads "rendering template failed: ...". The
// tests compare the output and the messages with Helm's engine (Helm is a
// test oracle, never a source).
//
// One documented difference: Helm's .Files.AsConfig and AsSecrets key each
// file by its base name, and when two files share one the survivor depends
// on Go's map order; here the path that sorts last wins, every run.
//
// The engine does not coalesce values, check schemas, sort or split what
// the templates print, or print anything: package render does the rest of
// `helm template` around it.
//
// Inside: repotool's template engine, written here (no copied code): runs a
// chart's templates as `helm template` does on Go's `text/template`, sprig's
// function library and Helm's exported chart model, with Helm's additions
// written from their documented behaviour (`toYaml` and the other data
// formats; `toYaml` hands the YAML library the tree it would read back from
// the JSON Helm's route prints, without printing it (`yaml_direct.go`, held to
// the JSON route by `TestYAMLTreeLikeJSON` and `FuzzYAMLTree`), `include` with
// its nesting limit, `tpl`, `required`, `fail`, `lookup`, `.Files`, the values
// of each subchart) and Helm's messages. A chart's templates are parsed once
// per `Engine` (an LRU of parsed sets, bounded by source bytes, one parse for
// renderings that ask at once) and each rendering runs a clone with its own
// `include`/`tpl` and its own `budget`, one part per concern, each with its
// methods in its own file: `made` (what the templates printed and nested,
// `run.go`), `callDepth` (how deep the calls run, `depth.go` and `stack.go`)
// and `recorder` (the unstable calls, `unstable.go`). `limits.go` (with
// `measure.go`, the printed size of a value, and `nesting.go`) bounds what one
// rendering may make (lists, strings, printed and encoded values, nesting,
// dicts that hold themselves, output; `RenderContext` stops at the context),
// and `depth.go` how deep `include` and `tpl` may run each other (per name,
// `tpl` alone, all calls), `stack.go` the Go stack they and the `template`
// action use, counted rather than measured (each template's weight, from its
// parse tree, added by `include`, `tpl`, and two actions given to the
// templates a `template` action runs), and `controls.go` how deep control
// actions nest, checked before text/template's parser recurses on them so that
// no template can end the process with an out-of-memory or stack-overflow
// crash. `unstable.go` records, per rendering, the calls of the functions
// whose result is not a function of the input (`lookup`, the clock, chance,
// generated keys) with the template and line (`RenderCalls`); verified
// (`render.Options.VerifyUnstable`, which lint and `hydrate --strict` set),
// each call site is tried again with another result, replaying the others, and
// kept only when the output changes (`render.Result.Unstable`, lint's
// `unstable-render`, `hydrate --strict`); unverified, recording costs nothing
// and nothing renders twice. `Engine.Helm` 4 adds Helm 4's functions
// (`mustToYaml`, `mustToToml`, the duration helpers) and its traced execution
// errors (`helm4.go`), with Helm 4's engine as that mode's oracle. Helm's own
// engine is the test oracle in process (community charts, a feature chart,
// every function on generated inputs, `FuzzFunctions`), the helm CLI through
// `pkg/render`'s parity tests; `TestWrittenHere` keeps it sharing no six-line
// run with Helm's `pkg/engine`.
package engine
