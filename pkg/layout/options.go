package layout

import "github.com/repotool/repotool/pkg/config"

// DefaultMaxValuesSize is the default limit on a values file's size: a
// values file is configuration, and a huge one (50 MB took helm 48 s and
// 1 GB) is a mistake or an attack.
const DefaultMaxValuesSize = 8 << 20

// Options configure Load.
type Options struct {
	// MaxValuesSize bounds a values file, in bytes: a larger one is a
	// too-large error. Zero: DefaultMaxValuesSize; negative: no limit.
	MaxValuesSize int64
	// ConfigFile is the configuration file's path inside the repository.
	// Default config.FileName. A missing file means DefaultConfig.
	ConfigFile string
	// Config, when non-nil, is used instead of reading ConfigFile.
	Config *config.Config
	// Helm is the Helm whose reading of values files the checks follow:
	// "v3" (the first YAML document) or "v4" (every document, merged).
	// Default: repotool.yaml's render.helm, else "v3". Rendering with
	// another than the layout was loaded with can fail a values file the
	// layout passed.
	Helm string
	// Only, when set, loads one target and what it needs (the
	// configuration, its namespace and cluster folders), without the
	// repository-wide checks.
	Only *TargetRef
	// Ignored, when set, reports the paths Git ignores in the work tree
	// the repository is read from (gitrev.Repo.Ignored): a values file it
	// reports is no input of any target (Argo CD, which renders from Git,
	// never sees it), with a git-ignored warning, an error with
	// IgnoredIsError. Nil for a revision read from Git.
	Ignored        func(path string) bool
	IgnoredIsError bool
	// GitDir is Git's directory, relative to the repository's root, when
	// it lies inside the root under another name than .git (where `git
	// rev-parse --git-dir` puts it); "" otherwise. LoadDir withholds it
	// from every reader, as it withholds every .git entry (see
	// fsutil.Carried).
	GitDir string
}
