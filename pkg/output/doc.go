// Package output formats repotool's results for people and machines.
//
// Each format is one value behind a small interface, looked up by name, in a
// file of its own with a golden test. Formatters write to the io.Writer they
// are given and never read global state. The package owns presentation only:
// what is reported is decided by the packages that produce the results.
package output
