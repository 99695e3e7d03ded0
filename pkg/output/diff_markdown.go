package output

import (
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/repotool/repotool/pkg/change"
)

// MaxCommentSize is the most characters GitHub takes in one pull-request
// comment. Markdown parts are measured in bytes, which are never fewer
// than characters, so a part of at most MaxCommentSize bytes always fits.
const MaxCommentSize = 65536

// MarkdownMarker starts every markdown part, followed by " part i/n -->":
// it finds the comments an earlier run posted, to update or delete them.
const MarkdownMarker = "<!-- repotool-diff"

type diffMarkdown struct{}

func (diffMarkdown) Name() string { return "markdown" }

// Write prints the parts of MarkdownParts one after the other.
func (diffMarkdown) Write(w io.Writer, res *change.Result, opts DiffOptions) error {
	ew := &errWriter{w: w}
	for i, part := range MarkdownParts(res, opts) {
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("%s", part)
	}
	return ew.err
}

// partHeaderMax is the most bytes a part's header takes (partHeader with
// three-digit numbers, or the first part's title with base and head).
const partHeaderMax = len(MarkdownMarker + " part 999/999 -->\n## repotool diff (part 999 of 999)\n\n")

func partHeader(i, n int) string {
	title := "## repotool diff"
	if n > 1 {
		title += fmt.Sprintf(" (part %d of %d)", i, n)
	}
	return fmt.Sprintf("%s part %d/%d -->\n%s\n\n", MarkdownMarker, i, n, title)
}

// MarkdownParts formats res as markdown for pull-request comments: a
// summary (base and head, counts, warnings and errors, and a table of the
// affected targets), then per cluster a collapsible section per namespace
// with each changed object's diff, then the generated Argo CD objects.
// The text is split into parts of at most opts.PartSize bytes
// (MaxCommentSize by default), between objects; a section split over two
// parts is closed and opened again, and the table's header is repeated.
// An object diff too long for a part of its own is cut, and the cut says
// so and where the whole diff is (opts.FullOutput).
func MarkdownParts(res *change.Result, opts DiffOptions) []string {
	size := opts.PartSize
	if size <= 0 {
		size = MaxCommentSize
	}
	full := opts.FullOutput
	if full == "" {
		full = "the output of `repotool diff -o text`"
	}
	// At least room for a cut object: a heading, a line and the notice.
	budget := max(size-partHeaderMax-8, 600)
	bodies := pack(markdownBlocks(res, full), budget)
	out := make([]string, len(bodies))
	for i, b := range bodies {
		out[i] = partHeader(i+1, len(bodies)) + b
	}
	return out
}

// mdBlock is one unit of the markdown that is never split between parts,
// except for an object diff, which is cut when it cannot fit a part of
// its own.
type mdBlock struct {
	// section opens the section the block is in ("" at the top level),
	// reopen opens it again at the start of the next part, and close
	// closes it.
	section, reopen, close string
	text                   string
	// cut, for a diff, is the block's text fitting in n bytes.
	cut func(n int) string
}

// pack lays the blocks out in parts of at most budget bytes each.
func pack(blocks []mdBlock, budget int) []string {
	var parts []string
	var b strings.Builder
	open, openClose := "", "" // the section open in the current part
	last := ""                // the section of the last block written
	flush := func() {
		b.WriteString(openClose)
		parts = append(parts, b.String())
		b.Reset()
		open, openClose = "", ""
	}
	for _, bl := range blocks {
		closing, opening := "", ""
		if bl.section != open {
			closing, opening = openClose, bl.section
		}
		if b.Len()+len(closing)+len(opening)+len(bl.text)+len(bl.close) <= budget {
			b.WriteString(closing + opening + bl.text)
			open, openClose, last = bl.section, bl.close, bl.section
			continue
		}
		if b.Len() > 0 {
			flush()
		}
		opening = bl.section
		if bl.section != "" && bl.section == last {
			opening = bl.reopen
		}
		text := bl.text
		if room := budget - len(opening) - len(bl.close); len(text) > room {
			if bl.cut != nil {
				text = bl.cut(room)
			} else {
				text = truncate(text, room-len("…\n\n")) + "…\n\n"
			}
		}
		b.WriteString(opening + text)
		open, openClose, last = bl.section, bl.close, bl.section
	}
	if b.Len() > 0 || len(parts) == 0 {
		flush()
	}
	return parts
}

// markdownBlocks lays res out as blocks.
func markdownBlocks(res *change.Result, full string) []mdBlock {
	var blocks []mdBlock
	top := func(format string, args ...any) { blocks = append(blocks, mdBlock{text: fmt.Sprintf(format, args...)}) }
	top("%s → %s: %s.\n\n", code(res.Base), code(res.Head), countsLine(res))
	if len(res.Hidden) > 0 {
		top("%s\n\n", hiddenSummary(res.Hidden))
	}
	if res.NotDecrypted {
		top("> [!NOTE]\n> Secret values were not decrypted (`--no-decrypt`): they are placeholders at both revisions, so a changed secret value is not shown " +
			"as a change.\n\n")
	}
	for _, w := range res.Warnings {
		top("> [!WARNING]\n> %s\n\n", oneLine(w))
	}
	for _, e := range res.Errors {
		top("> [!CAUTION]\n> %s\n\n", oneLine(e))
	}
	if len(res.Targets) == 0 && len(res.ArgoCD) == 0 {
		top("No target is affected.\n")
		return blocks
	}

	// The summary table.
	type tally struct{ added, removed, changed int }
	tallies := map[string]*tally{}
	for _, c := range res.Changes {
		t := tallies[c.Target]
		if t == nil {
			t = &tally{}
			tallies[c.Target] = t
		}
		switch c.Action {
		case "added":
			t.added++
		case "removed":
			t.removed++
		default:
			t.changed++
		}
	}
	const table = "| Target | Added | Removed | Changed | Changed files |\n|---|--:|--:|--:|---|\n"
	shown, same := shownTargets(res)
	for _, tg := range shown {
		t := tallies[tg.Name]
		if t == nil {
			t = &tally{}
		}
		name := code(tg.Name)
		switch {
		case tg.Added:
			name += " (new)"
		case tg.Removed:
			name += " (removed)"
		}
		blocks = append(blocks, mdBlock{section: table, reopen: table, close: "\n",
			text: fmt.Sprintf("| %s | %d | %d | %d | %s |\n", name, t.added, t.removed, t.changed, fileList(tg.Files))})
	}

	if same > 0 {
		top("%s re-rendered, no change.\n\n", count(same, "more target"))
	}

	// The objects, per cluster (with its subtotal) and namespace.
	cluster := ""
	for _, run := range byTarget(res.Changes) {
		c, ns, _ := strings.Cut(run[0].Target, "/")
		if c != cluster {
			cluster = c
			top("### Cluster %s: %s\n\n", code(c), clusterTotal(res.Changes, c))
		}
		blocks = append(blocks, sectionBlocks(fmt.Sprintf("<code>%s</code>", html.EscapeString(ns)), run, res.BaseSide, full)...)
	}
	if len(res.ArgoCD) > 0 {
		top("### Generated Argo CD objects\n\n")
		for _, run := range byTarget(res.ArgoCD) {
			blocks = append(blocks, sectionBlocks(fmt.Sprintf("cluster <code>%s</code>", html.EscapeString(run[0].Target)), run, res.BaseSide, full)...)
		}
	}
	return blocks
}

// byTarget splits changes, sorted by target, into runs of one target.
func byTarget(changes []change.Change) [][]change.Change {
	var out [][]change.Change
	for i := 0; i < len(changes); {
		j := i
		for j < len(changes) && changes[j].Target == changes[i].Target {
			j++
		}
		out = append(out, changes[i:j])
		i = j
	}
	return out
}

// sectionBlocks are a collapsible section titled name, holding the
// changed objects.
func sectionBlocks(name string, changes []change.Change, base, full string) []mdBlock {
	summary := name + ": " + actionCounts(changes)
	open := "<details>\n<summary>" + summary + "</summary>\n\n"
	reopen := "<details>\n<summary>" + summary + " (continued)</summary>\n\n"
	var out []mdBlock
	for _, ch := range changes {
		out = append(out, objectBlock(ch, base, open, reopen, full))
	}
	return out
}

// objectBlock is one changed object: its action and name, the secret
// fields that changed, and its diff in a fenced block, cut to fit when a
// part is too small for it.
func objectBlock(ch change.Change, base, open, reopen, full string) mdBlock {
	var head strings.Builder
	fmt.Fprintf(&head, "**%s** %s", ch.Action, code(ch.Object))
	if ch.APIVersion != "" {
		fmt.Fprintf(&head, " (apiVersion %s)", code(ch.APIVersion))
	}
	head.WriteString("\n\n")
	if ch.Cause != "" {
		fmt.Fprintf(&head, "- cause: %s\n", oneLine(ch.Cause))
	}
	for _, f := range ch.SecretFields {
		fmt.Fprintf(&head, "- secret value changed: %s (not shown)\n", code(f))
	}
	for _, p := range ch.Provenance {
		fmt.Fprintf(&head, "- from values: %s\n", provenance(p, base, code))
	}
	for _, a := range ch.Admission {
		fmt.Fprintf(&head, "- admitted: %s\n", code(a))
	}
	if len(ch.SecretFields) > 0 || ch.Cause != "" || len(ch.Provenance) > 0 || len(ch.Admission) > 0 {
		head.WriteString("\n")
	}
	bl := mdBlock{section: open, reopen: reopen, close: "</details>\n\n", text: head.String()}
	if ch.Diff == "" {
		return bl
	}
	fence := strings.Repeat("`", max(3, longestRun(ch.Diff, '`')+1))
	diff := ch.Diff
	if !strings.HasSuffix(diff, "\n") {
		diff += "\n"
	}
	prefix := head.String() + fence + "diff\n"
	suffix := fence + "\n\n"
	bl.text = prefix + diff + suffix
	bl.cut = func(n int) string {
		lines := strings.SplitAfter(diff, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		var b strings.Builder
		b.WriteString(prefix)
		shown := 0
		for _, l := range lines {
			notice := cutNotice(shown+1, len(lines), full)
			if b.Len()+len(l)+len(suffix)+len(notice) > n {
				// A line too long for a part of its own is cut at a
				// character boundary.
				if shown == 0 {
					room := n - b.Len() - len(suffix) - len(notice) - 1
					if room > 0 {
						b.WriteString(truncate(l, room) + "\n")
					}
				}
				break
			}
			b.WriteString(l)
			shown++
		}
		b.WriteString(suffix)
		b.WriteString(cutNotice(shown, len(lines), full))
		return b.String()
	}
	return bl
}

// truncate is s cut to at most n bytes, at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutNotice says a diff is cut and where the whole of it is.
func cutNotice(shown, total int, full string) string {
	return fmt.Sprintf(
		"> [!IMPORTANT]\n> This diff is cut: %d of its %d lines are shown, to fit a pull-request comment. The whole diff is in %s.\n\n",
		shown,
		total,
		full,
	)
}

// actionCounts is "1 added, 2 changed" for a run of changes.
func actionCounts(cs []change.Change) string {
	n := map[string]int{}
	for _, c := range cs {
		n[c.Action]++
	}
	var parts []string
	for _, a := range []string{"added", "removed", "changed"} {
		if n[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[a], a))
		}
	}
	return strings.Join(parts, ", ")
}

// fileList is a table cell listing files: at most five, then how many
// more.
func fileList(files []string) string {
	const most = 5
	var cells []string
	for i, f := range files {
		if i == most {
			cells = append(cells, fmt.Sprintf("and %d more", len(files)-most))
			break
		}
		cells = append(cells, code(f))
	}
	return strings.Join(cells, "<br>")
}

// code is s as inline code in a table cell or line: backticks long enough
// for the backticks s holds, and pipes escaped.
func code(s string) string {
	s = oneLine(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}

// oneLine puts s on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
