package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// loadRepo loads the layout and maps its errors to exit codes. limits, when
// given, are the command's render limits (--max-values-size).
func loadRepo(cmd *cobra.Command, dir string, limits ...*render.Options) (*layout.Repo, error) {
	return loadRepoOnly(cmd, dir, nil, limits...)
}

// loadRepoOnly is loadRepo, loading only the target only names when it is
// not nil (see layout.Options.Only).
func loadRepoOnly(cmd *cobra.Command, dir string, only *layout.TargetRef, limits ...*render.Options) (*layout.Repo, error) {
	opts := layoutOptions(limits...)
	opts.Only = only
	repo, err := layout.LoadDir(cmd.Context(), dir, opts)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, usageErr(fmt.Errorf("invalid configuration: %w", err))
		}
		return nil, usageErr(err)
	}
	return repo, nil
}

// layoutOptions are the layout limits that go with the render limits.
func layoutOptions(limits ...*render.Options) layout.Options {
	var opts layout.Options
	for _, l := range limits {
		opts.Helm = l.Helm
		opts.MaxValuesSize = l.MaxValuesSize
		if opts.MaxValuesSize <= 0 {
			opts.MaxValuesSize = -1 // no limit
		}
	}
	return opts
}

// cacheDir resolves the dependency cache: the flag, $REPOTOOL_CACHE_DIR, or
// the user cache folder ($XDG_CACHE_HOME/repotool).
func cacheDir(env Env, flag string) string {
	if flag != "" {
		return flag
	}
	if d := env.Getenv("REPOTOOL_CACHE_DIR"); d != "" {
		return d
	}
	if d := env.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "repotool")
	}
	if h := env.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "repotool")
	}
	return ""
}
