package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// IgnoreDifference is one entry of an Argo CD Application's
// spec.ignoreDifferences: the fields of the objects it names that Argo CD
// does not compare with the cluster. generate writes them into the
// Applications, and repotool diff hides a change to those fields too
// (jsonPointers; jqPathExpressions and managedFieldsManagers are Argo CD's
// alone).
type IgnoreDifference struct {
	Group                 string   `yaml:"group" json:"group,omitempty"`
	Kind                  string   `yaml:"kind" json:"kind"`
	Name                  string   `yaml:"name" json:"name,omitempty"`
	Namespace             string   `yaml:"namespace" json:"namespace,omitempty"`
	JSONPointers          []string `yaml:"jsonPointers" json:"jsonPointers,omitempty"`
	JQPathExpressions     []string `yaml:"jqPathExpressions" json:"jqPathExpressions,omitempty"`
	ManagedFieldsManagers []string `yaml:"managedFieldsManagers" json:"managedFieldsManagers,omitempty"`
}

// IgnoreDifferencesFor are the ignoreDifferences of namespace ns's
// Applications: argocd.ignoreDifferences, then the namespace's own.
func (c *Config) IgnoreDifferencesFor(ns string) []IgnoreDifference {
	return slices.Concat(c.ArgoCD.IgnoreDifferences, c.Namespaces[ns].IgnoreDifferences)
}

func validateIgnoreDifferences(file string, root *yaml.Node, cfg *Config) error {
	check := func(list []IgnoreDifference, at ...string) error {
		for _, d := range list {
			msg := ""
			switch {
			case d.Kind == "":
				msg = "an ignoreDifferences entry needs the kind it applies to"
			case len(d.JSONPointers)+len(d.JQPathExpressions)+len(d.ManagedFieldsManagers) == 0:
				msg = fmt.Sprintf("the ignoreDifferences entry for %s names no field: give jsonPointers, jqPathExpressions or managedFieldsManagers", d.Kind)
			}
			for _, p := range d.JSONPointers {
				if !strings.HasPrefix(p, "/") {
					msg = fmt.Sprintf("%q is not a JSON pointer: start it with /", p)
				}
			}
			if msg != "" {
				return badAt(file, root)(msg, at...)
			}
		}
		return nil
	}
	if err := check(cfg.ArgoCD.IgnoreDifferences, "argocd", "ignoreDifferences"); err != nil {
		return err
	}
	for _, ns := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		if err := check(cfg.Namespaces[ns].IgnoreDifferences, "namespaces", ns, "ignoreDifferences"); err != nil {
			return err
		}
	}
	return nil
}
