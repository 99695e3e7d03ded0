// Package cli is repotool's command line: cobra commands that turn flags
// into library options, call the pkg/ libraries and format their results.
// Anything longer than that belongs in pkg/.
//
// Inside: cobra commands (one constructor and one file per command: `compare`,
// `diff`, `generate` (+ `plugin`), `hydrate`, `layout`, `lint`, `migrate`,
// `render`, `values`, `version`; the flags several commands share in
// `flags.go`, loading the repository in `load.go`), flag → options wiring, the
// process context (`Env`: streams, environment, working directory) injected by
// `main`, named exit codes (0 clean, 1 findings, 2 usage/config/internal
// error, 130 interrupted).
package cli
