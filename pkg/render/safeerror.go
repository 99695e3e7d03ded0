package render

import (
	"context"
	"errors"
	"path"
	"regexp"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render/internal/charts"
)

func templateError(t *layout.Target, entry *charts.Loaded, msg string) *TemplateError {
	loc := locate(msg, entry)
	return &TemplateError{Target: t.Name(), Chart: t.ChartDir, File: loc.file, Line: loc.line, Msg: msg}
}

// safeError returns the error to show for a rendering that failed. Helm's
// messages quote values (a failed `fail` or `required`, invalid output
// YAML, a values.schema.json violation), in whatever form the templates
// gave them, so for a target with decrypted secret values the message is
// never Helm's message about that rendering: it is the message of the same
// rendering with placeholders for the secret values, or, when only the
// real values fail, a message that names the template and withholds the
// rest.
func (r *Renderer) safeError(ctx context.Context, t *layout.Target, entry *charts.Loaded, err error, secret bool) error {
	var te *TemplateError
	if !secret || !errors.As(err, &te) {
		return err
	}
	_, perr := r.renderPlaceholders(ctx, t, entry)
	if errors.As(perr, &te) {
		return te
	}
	if perr != nil {
		return perr
	}
	msg := "fails with the decrypted secret values, but not with placeholders for them: Helm's message is withheld because it could quote a secret"
	loc := locate(err.Error(), entry)
	switch {
	case loc.ref != "":
		msg += "; the failure is at " + loc.ref
	case strings.Contains(err.Error(), "values don't meet the specifications of the schema"):
		msg += "; the values do not match the chart's values.schema.json"
		loc.file = path.Join(t.ChartDir, "values.schema.json")
	}
	return &TemplateError{Target: t.Name(), Chart: t.ChartDir, File: loc.file, Line: loc.line, Msg: msg + "; check the secret values this template uses"}
}

// templateLocationRE finds "<chart>/templates/x.yaml:12:3" (line and
// column optional) in Helm's messages.
var templateLocationRE = regexp.MustCompile(`([\w.-]+(?:/[\w.-]+)*\.(?:yaml|yml|tpl|txt|json))(?::(\d+))?(?::\d+)?`)

// yamlLineRE finds the line of a YAML error about a rendered document.
var yamlLineRE = regexp.MustCompile(`yaml: line (\d+):`)

// location is where in the repository a rendering failed, as far as Helm's
// message tells.
type location struct {
	// ref is the chart's name for the file, with line and column, as Helm
	// gives it ("app/templates/cm.yaml:12:3").
	ref string
	// file is the repository path ("namespaces/app/templates/cm.yaml"),
	// or the archive the file is in; line is 0 when unknown.
	file string
	line int
}

// locate returns the first place in msg that names a file of the chart or
// of its dependencies, and only such a place (so that nothing else of the
// message can come through it).
func locate(msg string, entry *charts.Loaded) location {
	known := map[string]bool{}
	var add func(c *chart.Chart)
	add = func(c *chart.Chart) {
		for _, f := range c.Templates {
			known[path.Join(c.ChartFullPath(), f.Name)] = true
		}
		for _, f := range c.Files {
			known[path.Join(c.ChartFullPath(), f.Name)] = true
		}
		for _, d := range c.Dependencies() {
			add(d)
		}
	}
	add(entry.Chart)
	for _, m := range templateLocationRE.FindAllStringSubmatch(msg, -1) {
		if !known[m[1]] {
			continue
		}
		loc := location{ref: m[0]}
		loc.line, _ = strconv.Atoi(m[2])
		if loc.line == 0 {
			if y := yamlLineRE.FindStringSubmatch(msg); y != nil && strings.Contains(m[1], "/crds/") {
				loc.line, _ = strconv.Atoi(y[1]) // a plain file: the document's line is the file's
			}
		}
		// The chart (or subchart) the file belongs to: the longest origin.
		best := ""
		for full := range entry.Origins {
			if strings.HasPrefix(m[1], full+"/") && len(full) > len(best) {
				best = full
			}
		}
		origin := entry.Origins[best]
		switch {
		case best == "":
		case strings.HasSuffix(origin, ".tgz"):
			loc.file, loc.line = origin, 0
		default:
			loc.file = path.Join(origin, strings.TrimPrefix(m[1], best+"/"))
		}
		return loc
	}
	return location{}
}

// cleanHelmError returns Helm's message without its advice to use --debug,
// which does not apply here.
func cleanHelmError(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "\n\nUse --debug flag"); i >= 0 {
		msg = msg[:i]
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "cancelled: " + msg
	}
	return msg
}
