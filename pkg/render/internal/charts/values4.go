package charts

import (
	"fmt"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/repotool/repotool/internal/helmvalues"
)

// chartValues4 reads the values.yaml of c and of the subcharts vendored in
// it as Helm 4's loader does (helmvalues.Documents).
func chartValues4(c *chart.Chart) error {
	for _, f := range c.Raw {
		if f.Name != "values.yaml" {
			continue
		}
		v, err := helmvalues.Documents(f.Data)
		if err != nil {
			return fmt.Errorf("cannot load values.yaml: %w", err)
		}
		c.Values = v
	}
	for _, sub := range c.Dependencies() {
		if err := chartValues4(sub); err != nil {
			return err
		}
	}
	return nil
}
