// Package output formats repotool's results for people and machines.
//
// Each format is one value behind a small interface, looked up by name, in a
// file of its own with a golden test. Formatters write to the io.Writer they
// are given and never read global state. The package owns presentation only:
// what is reported is decided by the packages that produce the results.
//
// Inside: formatters behind small interfaces, looked up by name, one file and
// one golden test per format (layout: `text`, `json` (its targets encoded and
// written one at a time, the bytes `json.Encoder` writes for the whole `Repo`:
// `writeListed`, `TestLayoutJSONStreamed`); lint: `text`, `json` (its findings
// written one at a time likewise), `sarif`, `github`, over a `finding.Report`
// and the rules' `finding.Rule` documentation; values: `yaml`, `json`, over a
// `values.Effective`, secret values stood in for; compare: `text`, `json`,
// `markdown`, over a `change.Comparison`, reusing the diff formats for its
// objects); `WriteParts` (`diff_parts.go`) writes the markdown diff's parts to
// a folder, removing the parts a longer diff left (`diff --out-dir`, which the
// Action posts).
package output
