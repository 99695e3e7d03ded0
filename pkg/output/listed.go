package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// writeListed writes the bytes json.Encoder, indenting by two spaces,
// writes for a document whose top-level list key holds n values, elem(i)
// each: shell is the document with an empty list there. The list's
// values, most of a large report or inventory, are encoded and written
// one at a time: encoding/json builds a value's whole text, in a buffer
// grown by doubling, before it writes any of it (a lint report of 20,000
// targets is 40 MB of JSON).
func writeListed(w io.Writer, shell any, key string, n int, elem func(i int) any) error {
	head, err := indented(shell, "")
	if err != nil {
		return err
	}
	// The only line two spaces in that names key: a string holds no raw
	// newline.
	empty := []byte("\n  " + quoted(key) + ": []")
	at := bytes.Index(head, empty)
	if at < 0 {
		return fmt.Errorf("output: %q is not a top-level empty list of the document", key) // not reached
	}
	bw := bufio.NewWriter(w)
	bw.Write(head[:at+len(empty)-1]) // up to the list's "["
	for i := range n {
		v, err := indented(elem(i), "    ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(v)
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(head[at+len(empty):])
	bw.WriteByte('\n')
	return bw.Flush()
}

// quoted is s as JSON gives a key.
func quoted(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
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
