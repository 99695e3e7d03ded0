package docgen

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
)

// The picture of a pull-request comment in the README is drawn from the
// markdown `repotool diff -o markdown` printed in a CLI test, the way
// GitHub shows it (a summary table, a cluster's heading, its sections
// open, the diff coloured), so that it shows what the Action really
// posts and changes when the output does.

// svgWidth is the picture's width; charWidth and monoWidth are the widths
// of a character of the text and code fonts at their sizes, to lay out
// the table.
const (
	svgWidth  = 960
	margin    = 24
	charWidth = 8.6
	monoWidth = 7.9
	sansFont  = "-apple-system,Segoe UI,Helvetica,Arial,sans-serif"
	monoFont  = "ui-monospace,SFMono-Regular,Menlo,monospace"
)

// PRCommentSVG draws markdown, one part of a markdown diff, as GitHub
// shows it in a pull-request comment by the Action's bot.
func PRCommentSVG(markdown []byte) []byte {
	d := &drawing{y: 56}
	inDiff := false
	var table [][]string
	for _, line := range strings.Split(string(markdown), "\n") {
		if strings.HasPrefix(line, "|") {
			table = append(table, cells(line))
			continue
		}
		if table != nil {
			d.table(table)
			table = nil
		}
		switch {
		case strings.HasPrefix(line, "```"):
			inDiff = !inDiff
			d.y += 6
		case inDiff:
			d.diffLine(line)
		case line == "" || strings.HasPrefix(line, "<!--") || line == "<details>" || line == "</details>":
			d.y += 6
		case strings.HasPrefix(line, "## "):
			d.text(margin, 22, "600", "#1f2328", strings.TrimPrefix(line, "## "))
			d.rule()
		case strings.HasPrefix(line, "### "):
			d.text(margin, 18, "600", "#1f2328", strings.TrimPrefix(line, "### "))
		case strings.HasPrefix(line, "<summary>"):
			d.text(margin, 15, "400", "#1f2328", "▾ "+stripTags(line))
		case strings.HasPrefix(line, "- "):
			d.text(margin+16, 15, "400", "#1f2328", "• "+strings.TrimPrefix(line, "- "))
		default:
			for _, l := range wrapProse(line) {
				d.text(margin, 15, "400", "#1f2328", l)
			}
		}
	}
	var out bytes.Buffer
	height := int(d.y) + 20
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="repotool diff comment">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&out, `<rect x="0.5" y="0.5" width="%d" height="%d" rx="6" fill="#ffffff" stroke="#d0d7de"/>`+"\n", svgWidth-1, height-1)
	fmt.Fprintf(&out, `<path d="M0.5 6.5a6 6 0 0 1 6-6h%d a6 6 0 0 1 6 6v30h-%dz" fill="#f6f8fa" stroke="#d0d7de"/>`+"\n", svgWidth-13, svgWidth-1)
	out.WriteString(`<text x="16" y="24" font-family="-apple-system,Segoe UI,Helvetica,Arial,sans-serif" font-size="14" fill="#59636e">` +
		`<tspan font-weight="600" fill="#1f2328">github-actions</tspan> bot commented</text>` + "\n")
	out.WriteString(d.b.String())
	out.WriteString("</svg>\n")
	return out.Bytes()
}

// drawing is the picture's body as it is laid out, top down.
type drawing struct {
	b strings.Builder
	y float64
}

var codeSpan = regexp.MustCompile("`([^`]*)`")

// text writes one line of prose at x, its code spans in the code font on
// a grey ground, its **bold** bold.
func (d *drawing) text(x float64, size int, weight, color, line string) {
	d.y += float64(size) + 8
	fmt.Fprintf(&d.b, `<text x="%.0f" y="%.0f" font-family="%s" font-size="%d" font-weight="%s" fill="%s" xml:space="preserve">`,
		x, d.y, sansFont, size, weight, color)
	bold := false
	for i, part := range strings.Split(line, "**") {
		if i > 0 {
			bold = !bold
		}
		rest := part
		for rest != "" {
			loc := codeSpan.FindStringIndex(rest)
			if loc == nil {
				d.span(rest, bold, false)
				break
			}
			d.span(rest[:loc[0]], bold, false)
			d.span(rest[loc[0]+1:loc[1]-1], bold, true)
			rest = rest[loc[1]:]
		}
	}
	d.b.WriteString("</text>\n")
}

// span writes a run of text, bold or in the code font.
func (d *drawing) span(s string, bold, code bool) {
	if s == "" {
		return
	}
	attrs := ""
	if bold {
		attrs += ` font-weight="600"`
	}
	if code {
		attrs += ` font-family="ui-monospace,SFMono-Regular,Menlo,monospace" font-size="0.88em" fill="#0550ae"`
	}
	fmt.Fprintf(&d.b, "<tspan%s>%s</tspan>", attrs, html.EscapeString(html.UnescapeString(s)))
}

// rule draws the line under a heading.
func (d *drawing) rule() {
	d.y += 10
	fmt.Fprintf(&d.b, `<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="#d8dee4"/>`+"\n", margin, d.y, svgWidth-margin, d.y)
}

// diffLine draws one line of a diff block, on the colour of its kind.
func (d *drawing) diffLine(line string) {
	fill, color := "#f6f8fa", "#1f2328"
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		color = "#59636e"
	case strings.HasPrefix(line, "+"):
		fill, color = "#dafbe1", "#116329"
	case strings.HasPrefix(line, "-"):
		fill, color = "#ffebe9", "#82071e"
	case strings.HasPrefix(line, "@@"):
		fill, color = "#ddf4ff", "#0550ae"
	}
	fmt.Fprintf(&d.b, `<rect x="%d" y="%.0f" width="%d" height="18" fill="%s"/>`+"\n", margin, d.y+2, svgWidth-2*margin, fill)
	d.y += 18
	fmt.Fprintf(&d.b, `<text x="%d" y="%.0f" font-family="%s" font-size="12" fill="%s" xml:space="preserve">%s</text>`+"\n",
		margin+8, d.y-2, monoFont, color, html.EscapeString(line))
}

// table draws a markdown table: a header row, the separator row skipped,
// columns as wide as their longest cell.
func (d *drawing) table(rows [][]string) {
	if len(rows) > 1 {
		rows = append(rows[:1:1], rows[2:]...)
	}
	widths := make([]float64, len(rows[0]))
	for ri, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				continue
			}
			per := charWidth
			switch {
			case ri == 0:
				per = charWidth * 1.1 // bold
			case strings.Contains(c, "`"):
				per = monoWidth
			}
			widths[i] = max(widths[i], float64(len([]rune(stripCode(c))))*per+20)
		}
	}
	d.y += 8
	for ri, r := range rows {
		x := float64(margin)
		fill := "#ffffff"
		if ri == 0 || ri%2 == 0 {
			fill = "#f6f8fa"
		}
		for i, c := range r {
			if i >= len(widths) {
				break
			}
			fmt.Fprintf(&d.b, `<rect x="%.0f" y="%.0f" width="%.0f" height="28" fill="%s" stroke="#d0d7de"/>`+"\n", x, d.y, widths[i], fill)
			weight := "400"
			if ri == 0 {
				weight = "600"
			}
			d.textAt(x+10, weight, c)
			x += widths[i]
		}
		d.y += 28
	}
}

// textAt writes a table cell's text at x in the row that starts at the
// current line, and leaves the line where it was.
func (d *drawing) textAt(x float64, weight, s string) {
	top := d.y
	d.y = top + 19 - (15 + 8) // text moves down by its size and spacing to the baseline
	d.text(x, 15, weight, "#1f2328", s)
	d.y = top
}

// cells are the cells of a markdown table row.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var out []string
	for _, c := range strings.Split(row, "|") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

var tag = regexp.MustCompile(`<[^>]+>`)

func stripTags(s string) string { return html.UnescapeString(tag.ReplaceAllString(s, "")) }

func stripCode(s string) string { return strings.ReplaceAll(s, "`", "") }

// wrapProse breaks a paragraph without code spans into lines that fit the
// picture (one with code spans is left whole: a break inside a span would
// lose it).
func wrapProse(line string) []string {
	const most = 112
	if strings.Contains(line, "`") || len(line) <= most {
		return []string{line}
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(line) {
		if cur != "" && len(cur)+1+len(w) > most {
			out = append(out, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(out, cur)
}
