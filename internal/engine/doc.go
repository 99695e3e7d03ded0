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
package engine
