package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// addHelmFlag adds --helm: the Helm whose `helm template` the rendering
// matches (see docs/render.md, "Which Helm").
func addHelmFlag(fl *pflag.FlagSet, o *render.Options) {
	fl.Var(helmValue{&o.Helm}, "helm", "render as this Helm's helm template does: v3 or v4 (default: repotool.yaml's render.helm, else v3)")
}

// helmValue is --helm's value, checked as it is set.
type helmValue struct{ p *string }

func (h helmValue) String() string {
	if h.p == nil {
		return ""
	}
	return *h.p
}

func (h helmValue) Set(v string) error {
	if err := config.CheckHelmVersion(v); err != nil {
		return err
	}
	*h.p = v
	return nil
}

func (helmValue) Type() string { return "version" }

// addDependencyFlags adds --offline, --cache-dir and --remote-schema-refs:
// where remote chart dependencies and schemas come from.
func addDependencyFlags(fl *pflag.FlagSet, o *render.Options) {
	fl.BoolVar(&o.Offline, "offline", false, "never download: remote dependencies must be vendored or cached")
	fl.BoolVar(&o.RemoteSchemaRefs, "remote-schema-refs", false, "fetch the http(s) $refs of charts' values schemas (also REPOTOOL_REMOTE_SCHEMA_REFS=true)")
	fl.StringVar(&o.CacheDir, "cache-dir", "", "dependency cache (default $REPOTOOL_CACHE_DIR, else $XDG_CACHE_HOME/repotool)")
}

// addLimitFlags adds the render limits (see docs/render.md, "Limits").
func addLimitFlags(fl *pflag.FlagSet, o *render.Options) {
	fl.DurationVar(&o.Timeout, "timeout", o.Timeout, "time limit for rendering one target (0: none)")
	fl.Int64Var(&o.MaxValuesSize, "max-values-size", o.MaxValuesSize, "size limit of a values file, in bytes (0: none)")
	fl.Int64Var(&o.MaxOutputSize, "max-output-size", o.MaxOutputSize, "size limit of one target's rendered manifest, in bytes (0: none)")
}

// parseShard parses --shard ("" for none).
func parseShard(s string) (layout.Shard, error) {
	if s == "" {
		return layout.Shard{}, nil
	}
	sh, err := layout.ParseShard(s)
	if err != nil {
		return layout.Shard{}, fmt.Errorf("--shard: %w", err)
	}
	return sh, nil
}
