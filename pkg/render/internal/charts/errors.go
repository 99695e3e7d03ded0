package charts

import "fmt"

// ChartError is a chart that cannot be loaded.
type ChartError struct {
	// Chart is the chart folder (or file) in the repository.
	Chart string
	Err   error
	Hint  string
}

func (e *ChartError) Error() string {
	s := fmt.Sprintf("chart %s: %v", e.Chart, e.Err)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *ChartError) Unwrap() error { return e.Err }

// DependencyError is a chart dependency that cannot be resolved.
type DependencyError struct {
	Chart      string // the depending chart's folder
	Dependency string // the dependency's name
	Repository string
	Reason     string
	Hint       string
}

func (e *DependencyError) Error() string {
	return fmt.Sprintf("%s/Chart.yaml: dependency %q (%s): %s; %s", e.Chart, e.Dependency, ShownURL(e.Repository), e.Reason, e.Hint)
}
