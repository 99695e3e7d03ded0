// Package cli is repotool's command line: cobra commands that turn flags
// into library options, call the pkg/ libraries and format their results.
// Anything longer than that belongs in pkg/.
package cli
