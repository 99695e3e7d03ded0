package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/scope"
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
	ignoredIn(cmd, dir, &opts)
	repo, err := layout.LoadDir(cmd.Context(), dir, opts)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, usageErr(fmt.Errorf("invalid configuration: %w", err))
		}
		return nil, usageErr(err)
	}
	warnIgnored(cmd, repo.Diagnostics)
	return repo, nil
}

// warnIgnored says on standard error which values files Git ignores were
// left out, for the commands that do not print the layout's diagnostics
// (layout and lint do; --quiet silences the warning, never the error a
// target fails with).
func warnIgnored(cmd *cobra.Command, diags []layout.Diagnostic) {
	if quiet, _ := cmd.Flags().GetBool("quiet"); quiet || cmd.Name() == "layout" || cmd.Name() == "lint" {
		return
	}
	for _, d := range diags {
		if d.Code == layout.CodeGitIgnored && d.Severity == layout.SeverityWarning {
			fmt.Fprintf(cmd.ErrOrStderr(), "repotool: %s\n", d)
		}
	}
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

// supplyFrom completes o's chart supply from the operator's environment:
// the dependency cache (cacheDir), and REPOTOOL_REMOTE_SCHEMA_REFS=true,
// which fetches values schemas' remote $refs as --remote-schema-refs
// does (repotool.yaml cannot ask for either).
func supplyFrom(env Env, o *render.Options) {
	o.CacheDir = cacheDir(env, o.CacheDir)
	o.RemoteSchemaRefs = o.RemoteSchemaRefs || env.Getenv("REPOTOOL_REMOTE_SCHEMA_REFS") == "true"
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

// ciKey and strictKey mark the command's context: $CI is "true", or the
// command was given --strict (lint).
type (
	ciKey     struct{}
	strictKey struct{}
)

// ignoredIn sets opts to leave out the values files Git ignores when dir is
// in a Git work tree (layout.Options.Ignored): an error under $CI=true or
// lint --strict, a warning otherwise. Outside a work tree there is nothing
// to ignore. It returns the Git repository it opened (nil outside one), so
// that a caller reading Git too reads its index once.
func ignoredIn(cmd *cobra.Command, dir string, opts *layout.Options) *scope.Repo {
	git, err := scope.Open(dir)
	if err != nil {
		return nil
	}
	opts.GitDir = git.GitDir()
	if opts.Ignored, err = git.Ignored(); err != nil {
		opts.Ignored = nil // an index go-git cannot read: Git's own commands say why
		return git
	}
	ctx := cmd.Context()
	ci, _ := ctx.Value(ciKey{}).(bool)
	strict, _ := ctx.Value(strictKey{}).(bool)
	opts.IgnoredIsError = ci || strict
	return git
}
