package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/repotool/repotool/pkg/render"
)

// globals are the root's persistent flags: --quiet and --verbose, and the
// key policy (keys.go).
type globals struct {
	quiet, verbose bool
	keyFlags
}

// renderOptions are the render options the output settings ask for: a
// progress bar on standard error when it is a terminal (and not --quiet),
// and the library's log there: warnings by default, everything with
// --verbose, nothing with --quiet.
func (v *globals) renderOptions(stderr io.Writer, what string) []render.Option {
	var opts []render.Option
	level := slog.LevelWarn
	switch {
	case v.quiet:
		level = slog.LevelError + 1
	case v.verbose:
		level = slog.LevelDebug
	}
	if !v.quiet {
		opts = append(opts, render.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: noTime}))))
	}
	if f, ok := stderr.(*os.File); ok && !v.quiet && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		opts = append(opts, render.WithProgress(func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total,
					progressbar.OptionSetWriter(f),
					progressbar.OptionSetDescription(what),
					progressbar.OptionShowCount(),
					progressbar.OptionSetElapsedTime(true),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionClearOnFinish(),
					progressbar.OptionSetRenderBlankState(true),
				)
			}
			bar.Set(done)
			if done == total {
				bar.Finish()
			}
		}))
	}
	return opts
}

// info prints an informational line on standard error, unless --quiet.
func (v *globals) info(w io.Writer, format string, args ...any) {
	if !v.quiet {
		fmt.Fprintf(w, format, args...)
	}
}

// noTime drops the time from log records: stderr stays the same from run
// to run.
func noTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
