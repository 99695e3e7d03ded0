package render

import (
	"sync"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
)

// valuesDocsKept is how many charts' and subcharts' values.yaml a
// Renderer keeps parsed for EffectiveValues.
const valuesDocsKept = 64

// valuesDocs keeps the values.yaml of the charts EffectiveValues traced
// last, parsed, by file: a loaded chart's file, which its copies share, so
// that the targets of one chart (a diff's provenance asks for each
// changed target at both revisions) parse it once, not once each. At most
// valuesDocsKept, the oldest let go first; a chart loaded again (after
// Release) is a new file, parsed again. The documents are shared: read
// them, never change them (values.TraceLayers only reads).
type valuesDocs struct {
	mu    sync.Mutex
	docs  map[*chart.File]*yaml.Node
	order []*chart.File
}

// of is c's values.yaml as chartValuesDoc parses it, kept.
func (m *valuesDocs) of(c *chart.Chart, helm4 bool) *yaml.Node {
	f := valuesFileOf(c)
	if f == nil {
		return nil
	}
	m.mu.Lock()
	doc, ok := m.docs[f]
	m.mu.Unlock()
	if ok {
		return doc
	}
	doc = chartValuesDoc(c, helm4)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.docs[f]; ok { // parsed meanwhile by another call: one is kept
		return m.docs[f]
	}
	if m.docs == nil {
		m.docs = map[*chart.File]*yaml.Node{}
	}
	if len(m.order) == valuesDocsKept {
		delete(m.docs, m.order[0])
		m.order = m.order[1:]
	}
	m.docs[f] = doc
	m.order = append(m.order, f)
	return doc
}
