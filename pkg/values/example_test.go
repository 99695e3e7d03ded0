package values_test

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/values"
)

// Trace where a target's values come from: the chart's defaults, then a
// common and a cluster values file.
func ExampleTraceLayers() {
	parse := func(s string) *yaml.Node {
		var n yaml.Node
		_ = yaml.Unmarshal([]byte(s), &n)
		return n.Content[0]
	}
	trace := values.TraceLayers([]values.Layer{
		{File: "namespaces/shop/values.yaml", Doc: parse("replicas: 1\nextraEnv: [{name: A}]\n")},
		{File: "namespaces/shop/common-values.yaml", Doc: parse("extraEnv: [{name: B}]\n")},
		{File: "clusters/prod/shop/prod-values.yaml", Doc: parse("replicas: 3\n")},
	})
	for _, key := range []string{"replicas", "extraEnv"} {
		o := trace[values.Key([]string{key})]
		fmt.Printf("%s: %s:%d, over %d, replaced a list: %v\n", key, o.From.File, o.From.Line, len(o.Overrode), o.ReplacedList)
	}
	// Output:
	// replicas: clusters/prod/shop/prod-values.yaml:1, over 1, replaced a list: false
	// extraEnv: namespaces/shop/common-values.yaml:1, over 1, replaced a list: true
}
