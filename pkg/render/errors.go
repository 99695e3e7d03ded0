package render

import (
	"fmt"
	"strconv"
	"time"

	"github.com/repotool/repotool/pkg/render/internal/charts"
)

// ChartError is a chart that cannot be loaded.
type ChartError = charts.ChartError

// SchemaError is a chart's values.schema.json that is not JSON. (Helm
// reports it as values that "don't meet the specifications of the
// schema(s)", naming neither the file nor the line.)
type SchemaError struct {
	// File is the schema in the repository: a chart folder's
	// values.schema.json, or archive.tgz!chart/values.schema.json.
	File string
	Line int
	Err  error
}

func (e *SchemaError) Error() string {
	at := e.File
	if e.Line > 0 {
		at += ":" + strconv.Itoa(e.Line)
	}
	return fmt.Sprintf("%s: the values schema is not valid JSON: %v; fix its syntax (Helm checks the values against it before rendering)", at, e.Err)
}

func (e *SchemaError) Unwrap() error { return e.Err }

// DependencyError is a chart dependency that cannot be resolved.
type DependencyError = charts.DependencyError

// ValuesError is a values file that cannot be read or parsed.
type ValuesError struct {
	File string
	Err  error
}

func (e *ValuesError) Error() string {
	return fmt.Sprintf("%s: %v; make it a YAML mapping of values (key: value)", e.File, e.Err)
}

func (e *ValuesError) Unwrap() error { return e.Err }

// TemplateError is a chart that loads but does not render with the
// target's values (a template error, a failed `required`, invalid YAML
// output). Its message never contains a decrypted secret value.
type TemplateError struct {
	Target string // cluster/namespace
	Chart  string
	// File and Line locate the failure in the repository when Helm's
	// message names a file of the chart ("" and 0 otherwise). File is an
	// archive's path for a file inside a packaged chart.
	File string
	Line int
	Msg  string
}

func (e *TemplateError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("render %s (chart %s): %s:%d: %s", e.Target, e.Chart, e.File, e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("render %s (chart %s): %s: %s", e.Target, e.Chart, e.File, e.Msg)
	}
	return fmt.Sprintf("render %s (chart %s): %s", e.Target, e.Chart, e.Msg)
}

// TimeoutError is a target that did not render within Options.Timeout.
type TimeoutError struct {
	Target  string // cluster/namespace
	Chart   string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("render %s (chart %s): did not finish within %s (--timeout): a template may loop for ever or over far too much; Argo CD would kill "+
		"the plugin at 90s",
		e.Target, e.Chart, e.Timeout)
}
