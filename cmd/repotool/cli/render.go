package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/repotool/repotool/pkg/argocd"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/held"
	"github.com/repotool/repotool/pkg/hydrate"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

type renderFlags struct {
	shard              string
	cluster, namespace string
	all                bool
	outDir             string
	argocd             bool
	noDecrypt          bool
	discover           bool
	tier               string
	secrets            string
	redact             bool
	asAdmitted         bool
	opts               render.Options
}

func newRenderCmd(env Env, v *globals) *cobra.Command {
	f := renderFlags{opts: render.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "render [REPO] (--cluster C [--namespace N] | --all) [--out-dir DIR]",
		Short: "Render targets to Kubernetes manifests, in process, decrypting secrets in memory",
		Long: `render renders (cluster, namespace) targets with Helm's SDK: the namespace chart
with its dependencies, the target's values merged in layout order, SOPS-encrypted
values decrypted in memory (keys from the standard SOPS environment), and the
cluster's Kubernetes version and API versions. The output is what
"helm template --include-crds" prints for the same input.

  render REPO --cluster C --namespace N    one target, to stdout
  render REPO --cluster C                  all of C's namespaces, to stdout
  render REPO --all --out-dir DIR          every target to DIR/<cluster>/<namespace>.yaml
  render --argocd                          Argo CD plugin mode (see docs/render.md)

Standard output gets all targets or nothing: if one fails, nothing is printed.
With --out-dir every target that renders is written (secrets redacted, as
files are stored), the file of every target that failed is removed, and
failures are listed at the end. A target that the repository declares but
that cannot be loaded (a broken chart, an unreadable or dangling values file)
fails; it is never left out. An interrupted run writes nothing.

Exit status: 0 when every target rendered, 1 when any failed, 2 on a usage
error, an invalid repotool.yaml or an unreadable repository, 130 when
interrupted.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.argocd {
				return runRenderArgoCD(cmd, env, &f, args, v)
			}
			return runRender(cmd, env, &f, args, v)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.cluster, "cluster", "c", "", "cluster to render")
	fl.StringVarP(&f.namespace, "namespace", "n", "", "namespace to render (with --cluster)")
	fl.BoolVar(&f.all, "all", false, "render every target")
	fl.StringVar(&f.outDir, "out-dir", "", "write DIR/<cluster>/<namespace>.yaml per target instead of standard output")
	fl.BoolVar(&f.argocd, "argocd", false, "Argo CD Config Management Plugin mode: target from the plugin environment")
	fl.BoolVar(&f.discover, "discover", false, "with --argocd: print the plugin name when the application's source is a target of this layout, nothing "+
		"otherwise (plugin discovery)")
	fl.StringVar(&f.tier, "tier", "", "emit only the objects of this responsibility tier: cluster, namespaces or application (with --argocd: default "+
		"$ARGOCD_ENV_TIER)")
	fl.BoolVar(&f.noDecrypt, "no-decrypt", false, "do not decrypt secret values files: render typed placeholders instead (never with --argocd)")
	fl.BoolVar(&f.redact, "redact", false, "mask secret values on standard output (always on with --out-dir)")
	fl.BoolVar(&f.asAdmitted, "as-admitted", false, "print the objects as the API server would store them, after the cluster's "+
		"MutatingAdmissionPolicies (a comment before each changed object names the policies and fields); renders every target of the "+
		"selected clusters, where the policies are")
	fl.StringVar(&f.secrets, "secrets", "", "print Secrets as hydrate writes them: sops (encrypted for .sops.yaml's rule for "+
		"<cluster>/<namespace>/manifest.yaml), sealed-secrets, or refuse (fail a target that renders one); the command a hydrated folder's "+
		"hydrator.metadata records")
	fl.StringVar(&f.opts.ReleaseName, "release-name", "", "Helm release name (default: the namespace)")
	fl.StringVar(&f.opts.KubeVersion, "kube-version", "", "Kubernetes version for every target (default: from repotool.yaml)")
	fl.StringSliceVar(&f.opts.APIVersions, "api-versions", nil, "extra API versions for Capabilities.APIVersions")
	fl.BoolVar(&f.opts.SkipCRDs, "skip-crds", false, "leave out CRDs from charts' crds/ folders")
	addDependencyFlags(fl, &f.opts)
	fl.IntVar(&f.opts.Concurrency, "concurrency", f.opts.Concurrency, "targets rendered at once")
	fl.StringVar(&f.shard, "shard", "", "render part i of n of the selected targets (i/n), for spreading the work over CI jobs")
	addLimitFlags(fl, &f.opts)
	addHelmFlag(fl, &f.opts)
	return cmd
}

func runRender(cmd *cobra.Command, env Env, f *renderFlags, args []string, v *globals) error {
	var only *layout.TargetRef
	if f.cluster != "" && f.namespace != "" && !f.all && !f.asAdmitted {
		only = &layout.TargetRef{Cluster: f.cluster, Namespace: f.namespace} // one target: load what it needs
	}
	repo, err := loadRepoOnly(cmd, repoArg(args), only, &f.opts)
	if err != nil {
		return err
	}
	sel, err := selectTargets(repo, f)
	if err != nil {
		return usageErr(err)
	}
	shard, err := parseShard(f.shard)
	if err != nil {
		return usageErr(err)
	}
	sel.targets = shard.Targets(sel.targets)
	if !shard.First() {
		sel.outside = nil // the first shard reports what belongs to no target
	}
	if err := checkOutputFlags(f); err != nil {
		return usageErr(err)
	}
	supplyFrom(env, &f.opts)
	f.opts.Redacted = f.outDir != "" || f.redact
	ropts := append(v.decrypter(f.noDecrypt), v.renderOptions(cmd.ErrOrStderr(), "rendering")...)
	r := render.New(repo, f.opts, ropts...)
	if f.tier != "" {
		results := r.RenderAll(cmd.Context(), sel.targets)
		if err := cmd.Context().Err(); err != nil {
			return err // interrupted: Run says so, once; nothing was written
		}
		for _, res := range results {
			if res.Err == nil && f.secrets != "" {
				res.Err = hydrated(cmd, repo, res, f.secrets, v.decrypterOrDefault())
			}
		}
		return writeTier(cmd, repo, results, f.tier, sel.outside)
	}
	if f.outDir != "" {
		return writeOutDir(cmd, f.outDir, r, sel.targets, sel.outside, v)
	}
	if f.asAdmitted {
		return printAdmitted(cmd, repo, r, sel, f)
	}
	return printAll(cmd, repo, r, sel, f, v)
}

// printAll renders the selected targets to standard output, all or
// nothing: the renderings' bytes are held until every target has
// rendered, compressed in memory (they may hold decrypted values), each
// distinct one once, and nothing else of them.
func printAll(cmd *cobra.Command, repo *layout.Repo, r *render.Renderer, sel selection, f *renderFlags, v *globals) error {
	out := held.NewOutput()
	defer out.Close()
	var failed []error
	var werr error
	r.RenderEach(cmd.Context(), sel.targets, func(_ int, res *render.Result) {
		if res.Err != nil {
			failed = append(failed, res.Err)
			return
		}
		if f.secrets != "" {
			if err := hydrated(cmd, repo, res, f.secrets, v.decrypterOrDefault()); err != nil {
				failed = append(failed, err)
				return
			}
		}
		data := res.Manifest
		if f.redact {
			var err error
			if data, err = res.Redacted(); err != nil {
				werr = errors.Join(werr, err)
				return
			}
		}
		werr = errors.Join(werr, out.Add(data))
	})
	if err := cmd.Context().Err(); err != nil {
		return err // interrupted: Run says so, once; nothing was written
	}
	if werr != nil {
		return werr
	}
	if len(failed) > 0 || sel.outside != nil {
		return reportFailures(cmd.ErrOrStderr(), sel.outside, failed, len(sel.targets), "nothing was written to standard output")
	}
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	if _, err := out.WriteTo(w); err != nil {
		return err
	}
	return w.Flush()
}

// checkOutputFlags refuses combinations of the flags that say what is
// printed where.
func checkOutputFlags(f *renderFlags) error {
	switch {
	case f.tier != "" && (f.outDir != "" || f.redact):
		return errors.New("--tier writes to standard output: do not combine it with --out-dir or --redact")
	case f.secrets != "" && (f.outDir != "" || f.redact || f.noDecrypt):
		return errors.New("--secrets writes Secrets as hydrate does, from their real values: do not combine it with --out-dir, --redact or --no-decrypt")
	case f.asAdmitted && (f.outDir != "" || f.redact || f.tier != "" || f.secrets != "" || f.shard != ""):
		return errors.New("--as-admitted prints every object of the selected targets to standard output: do not combine it with --out-dir, " +
			"--redact, --tier, --secrets or --shard")
	}
	return nil
}

// writeOutDir writes every rendered target to DIR/<cluster>/<namespace>.yaml
// (render.Renderer.WriteDir) and reports what it did and the failures.
func writeOutDir(cmd *cobra.Command, dir string, r *render.Renderer, targets []layout.Target, outside error, v *globals) error {
	w := cmd.ErrOrStderr()
	res, err := r.WriteDir(cmd.Context(), dir, targets)
	for _, file := range res.Removed {
		v.info(w, "removed %s (the target failed: its old rendering would be stale)\n", file)
	}
	if err := cmd.Context().Err(); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	v.info(w, "rendered %d of %d targets into %s (secret values redacted)\n", res.Written, len(targets), dir)
	if len(res.Failed) > 0 || outside != nil {
		return reportFailures(w, outside, res.Failed, len(targets), "their files were removed")
	}
	return nil
}

// reportFailures lists the layout's errors outside any target (when not
// nil) and the targets that failed, and returns the findings exit.
func reportFailures(w io.Writer, outside error, failed []error, total int, note string) error {
	indent := func(err error) string { return strings.ReplaceAll(err.Error(), "\n", "\n  ") }
	if outside != nil {
		fmt.Fprintf(w, "%s\n", outside)
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "%d of %d targets failed to render (%s):\n", len(failed), total, note)
		for _, err := range failed {
			fmt.Fprintf(w, "  %s\n", indent(err))
		}
	}
	return findings()
}

func runRenderArgoCD(cmd *cobra.Command, env Env, f *renderFlags, args []string, v *globals) error {
	if len(args) > 0 || f.all || f.cluster != "" || f.namespace != "" || f.outDir != "" || f.redact || f.noDecrypt || f.secrets != "" {
		return usageErr(errors.New("--argocd takes its target and secrets mode from the Argo CD plugin environment and needs real secret values: " +
			"give no REPO, --cluster, --namespace, --all, --out-dir, --redact, --no-decrypt or --secrets"))
	}
	pe := argocd.ParsePluginEnv(env.Environ)
	root, err := pe.RepoRoot(env.Dir)
	if err == nil && f.discover {
		// Discovery: claim the application only when its source is a
		// target of a repotool layout; stay silent otherwise.
		if repo, lerr := layout.LoadDir(cmd.Context(), root, layout.Options{}); lerr == nil {
			if _, terr := pe.Target(repo); terr == nil {
				fmt.Fprintln(cmd.OutOrStdout(), argocd.SettingsOf(&repo.Config).PluginName)
			}
		}
		return nil
	}
	if f.discover {
		return nil
	}
	if err != nil {
		return usageErr(err)
	}
	// One target per call, in repositories of thousands: load what it
	// needs when the environment names it.
	repo, err := loadRepoOnly(cmd, root, pe.TargetRef(), &f.opts)
	if err != nil {
		return err
	}
	t, err := pe.Target(repo)
	if err != nil && pe.TargetRef() != nil {
		// The source path was not clusters/<cluster>/<namespace> after
		// all: look in the whole layout, which also explains better.
		if repo, err = loadRepo(cmd, root, &f.opts); err != nil {
			return err
		}
		t, err = pe.Target(repo)
	}
	if err != nil {
		return usageErr(notFound(repo, err.Error()))
	}
	if err := pe.Admit(repo, t, cmp.Or(f.tier, pe.Tier)); err != nil {
		return &exitError{Code: ExitFindings, Err: err}
	}
	if pe.KubeVersion != "" && f.opts.KubeVersion == "" {
		f.opts.KubeVersion = pe.KubeVersion
	}
	f.opts.APIVersions = append(f.opts.APIVersions, pe.APIVersions...)
	supplyFrom(env, &f.opts)
	res, err := render.New(repo, f.opts, append(v.decrypter(false), v.renderOptions(cmd.ErrOrStderr(), "rendering")...)...).Render(cmd.Context(), t)
	if err != nil {
		return &exitError{Code: ExitFindings, Err: err}
	}
	if pe.Secrets != "" {
		// The dry source of Argo CD's Source Hydrator, which commits
		// what it prints: Secrets as hydrate writes them.
		if err := hydrated(cmd, repo, res, pe.Secrets, v.decrypterOrDefault()); err != nil {
			return &exitError{Code: ExitFindings, Err: err}
		}
	}
	tier := cmp.Or(f.tier, pe.Tier)
	if tier == "" {
		_, err = cmd.OutOrStdout().Write(res.Manifest)
		return err
	}
	return writeTier(cmd, repo, []*render.Result{res}, tier, nil)
}

// hydrated replaces res's manifest and objects by what hydrate writes for
// them with the secrets mode.
func hydrated(cmd *cobra.Command, repo *layout.Repo, res *render.Result, secrets string, dec decrypt.Decrypter) error {
	data, err := hydrate.Manifest(cmd.Context(), repo, res, hydrate.SecretsMode(secrets), dec)
	if err != nil {
		return err
	}
	objs, err := manifest.Read(data)
	if err != nil {
		return err
	}
	res.Manifest, res.Objects = data, objs
	return nil
}

// writeTier prints the part of each rendering that tier owns; all or
// nothing, like the plain stream. Which custom kinds are cluster-scoped
// comes from the CRDs the target's own rendering holds: a target reads
// nothing of the other namespaces (layout.Repo.Inputs, what Argo CD's
// manifest-generate-paths lists). lint's project-permission rule, over the
// whole repository's CRDs, and Argo CD's AppProjects refuse a
// cluster-scoped custom kind that another chart defines.
func writeTier(cmd *cobra.Command, repo *layout.Repo, results []*render.Result, tier string, outside error) error {
	var out bytes.Buffer
	var failed []error
	for _, res := range results {
		if res.Err == nil {
			tiers := argocd.NewTiers(repo, manifest.NewCRDs(manifest.CRDsOf(res.Objects)...))
			data, err := tiers.Split(res.Target, res.Manifest, res.Objects, config.ArgoTier(tier))
			if err != nil {
				res.Err = err
			} else {
				out.Write(data)
				continue
			}
		}
		failed = append(failed, res.Err)
	}
	if len(failed) > 0 || outside != nil {
		return reportFailures(cmd.ErrOrStderr(), outside, failed, len(results), "nothing was written to standard output")
	}
	_, err := cmd.OutOrStdout().Write(out.Bytes())
	return err
}
