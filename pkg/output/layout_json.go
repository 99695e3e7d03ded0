package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/repotool/repotool/pkg/layout"
)

// layoutJSON writes the inventory as indented JSON: the layout.Repo model
// with its json tags (clusters, namespaces, targets, diagnostics).
type layoutJSON struct{}

func (layoutJSON) Name() string { return "json" }

// targetsKey is how the indented encoding of a Repo with no targets
// gives them: the only line two spaces in that names "targets" (a string
// holds no raw newline).
const targetsKey = "\n  \"targets\": []"

// Write writes the bytes json.Encoder would write for repo, with its
// targets (most of the document: 14 MB at 20,000 targets) encoded and
// written one at a time: encoding/json builds a value's whole text, in a
// buffer grown by doubling, before it writes any of it.
func (layoutJSON) Write(w io.Writer, repo *layout.Repo) error {
	shell := *repo
	shell.Targets = []layout.Target{}
	head, err := indented(&shell, "")
	if err != nil {
		return err
	}
	at := bytes.Index(head, []byte(targetsKey))
	if len(repo.Targets) == 0 || at < 0 {
		whole, err := indented(repo, "")
		if err != nil {
			return err
		}
		_, err = w.Write(append(whole, '\n'))
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(head[:at+len(targetsKey)-1]) // up to the targets' "["
	for i := range repo.Targets {
		t, err := indented(&repo.Targets[i], "    ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(t)
	}
	bw.WriteString("\n  ]")
	bw.Write(head[at+len(targetsKey):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// indented is v as json.Encoder encodes it indented by two spaces, each
// line after the first starting with prefix, without the newline after.
func indented(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
