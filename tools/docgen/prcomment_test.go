package docgen

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
)

// TestPRCommentPicture: the README's picture of the Action's comment is
// drawn from the markdown diff the CLI test prints (its golden), so it
// changes when the output does; it is well-formed SVG that holds the
// comment's text.
func TestPRCommentPicture(t *testing.T) {
	md, err := os.ReadFile("../../cmd/repotool/cli/testdata/golden/diff-worktree.markdown")
	if err != nil {
		t.Fatal(err)
	}
	svg := PRCommentSVG(md)
	golden.Check(t, "../../docs/images/pr-comment.svg", svg)
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed SVG: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	for _, want := range []string{"repotool diff", "prod-cluster/namespace-a", "from values: ", "config.LOG_LEVEL", `+  LOG_LEVEL: "trace"`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the picture does not show %q", want)
		}
	}
}
