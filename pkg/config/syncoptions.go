package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// SyncOptionNames are the Argo CD sync options an Application's
// syncPolicy.syncOptions may set (Argo CD's user guide, "Sync Options").
var SyncOptionNames = []string{
	"ApplyOutOfSyncOnly",
	"ClientSideApplyMigration",
	"CreateNamespace",
	"Delete",
	"FailOnSharedResource",
	"Force",
	"Prune",
	"PruneLast",
	"PrunePropagationPolicy",
	"Replace",
	"RespectIgnoreDifferences",
	"ServerSideApply",
	"SkipDryRunOnMissingResource",
	"Validate",
}

// syncOptionRE is one sync option: Name=value.
var syncOptionRE = regexp.MustCompile(`^([A-Za-z]+)=([A-Za-z0-9-]+)$`)

// OwnerActionRE matches the actions ArgoCDConfig.OwnerActions may grant:
// Argo CD's update and delete on an application's resources
// (update/<group>/<kind>/<namespace>/<name>, "*" globs; "update/*" for
// every resource) and resource actions (action/<group>/<kind>/<action>).
// Nothing a project role's policy line could be broken with: no comma, no
// space.
var OwnerActionRE = regexp.MustCompile(`^((update|delete)/[A-Za-z0-9.*-]+(/[A-Za-z0-9.*-]+){0,3}|action/[A-Za-z0-9.*-]*/[A-Za-z0-9.*-]+/[A-Za-z0-9.*-]+)$`)

// checkSyncOptions checks a list of sync options: each Name=value with a
// known name, each name once.
func checkSyncOptions(opts []string) error {
	seen := map[string]bool{}
	for _, o := range opts {
		m := syncOptionRE.FindStringSubmatch(o)
		if m == nil {
			return fmt.Errorf("%q is not Name=value (such as ServerSideApply=true)", o)
		}
		if !slices.Contains(SyncOptionNames, m[1]) {
			return fmt.Errorf("%q: unknown sync option %s; Argo CD's are %s", o, m[1], strings.Join(SyncOptionNames, ", "))
		}
		if seen[m[1]] {
			return fmt.Errorf("%s is given twice", m[1])
		}
		seen[m[1]] = true
	}
	return nil
}

// MergeSyncOptions returns the sync options of lists, in order, a later
// list's option replacing an earlier one of the same name; sorted by name.
func MergeSyncOptions(lists ...[]string) []string {
	byName := map[string]string{}
	for _, l := range lists {
		for _, o := range l {
			name, _, _ := strings.Cut(o, "=")
			byName[name] = o
		}
	}
	out := make([]string, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name])
	}
	return out
}
