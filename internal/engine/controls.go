package engine

import (
	"fmt"
	"strings"
)

// MaxControlNesting bounds how deep a template's control actions nest: if,
// range, with, block and define, and each link of an else-if or else-with
// chain, which text/template nests inside the one before it. Its parser and
// its execution both recurse once or more per level, on the Go stack, and a
// few megabytes of nested ifs (a chart file may have 5 MiB, a tpl text
// 64 MiB) overflow it, which ends the process; charts nest a few levels.
// The text is measured before it is parsed.
const MaxControlNesting = 10_000

// MaxRangeNesting bounds how deep range actions nest, among the control
// actions. text/template recovers and panics again at each range that an
// error passes through (for break and continue), which costs the square of
// their number: 10,000 nested ranges took 28 s to give their error up, 1,000
// take a quarter of a second. stack.go bounds the ranges along the calls
// running inside each other the same way.
const MaxRangeNesting = 1_000

// minControl is the fewest bytes a control action takes ("{{if.}}"): a
// text shorter than MaxRangeNesting of them can pass neither limit, and is
// not scanned.
const minControl = len("{{if.}}")

// checkControls fails text whose control actions nest deeper than
// MaxControlNesting, or whose range actions nest deeper than
// MaxRangeNesting, with a message in the form of a parse error.
func checkControls(name, text string) error {
	if len(text) < minControl*MaxRangeNesting {
		return nil
	}
	controls, ranges := controlNesting(text, MaxControlNesting)
	switch {
	case controls > MaxControlNesting:
		return limitError(fmt.Sprintf("template: %s: the control actions (if, range, with, block, define, else if) nest more than %d deep (repotool's limit)",
			name, MaxControlNesting))
	case ranges > MaxRangeNesting:
		return limitError(fmt.Sprintf("template: %s: the range actions nest more than %d deep (repotool's limit)", name, MaxRangeNesting))
	}
	return nil
}

// controlNesting is how deep the control actions of text nest, and the
// range actions among them, read as text/template's lexer reads actions
// (the "{{- " trim marker, comments, and quoted, raw and character
// strings, in which a "}}" or a keyword is text), up to limit+1. It never
// counts less than text/template's parser nests, on the part of text the
// parser reads before any error: FuzzControlNesting holds it to that.
func controlNesting(text string, limit int) (controls, ranges int) {
	type control struct{ levels, ranges int } // what an open control action's end closes
	var open []control
	depth, rangeDepth, deepest, deepestRange := 0, 0, 0, 0
	for i := 0; deepest <= limit; {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			break
		}
		i += j + 2
		if len(text) > i+1 && text[i] == '-' && isSpaceByte(text[i+1]) {
			i += 2
		}
		if strings.HasPrefix(text[i:], "/*") {
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				break // an unclosed comment: the parse ends here
			}
			i += 2 + end + 2
			continue
		}
		word, rest := actionWord(text[i:])
		switch word {
		case "if", "with", "block", "define":
			open = append(open, control{levels: 1})
			depth++
		case "range":
			open = append(open, control{levels: 1, ranges: 1})
			depth++
			rangeDepth++
		case "else":
			if next, _ := actionWord(rest); (next == "if" || next == "with") && len(open) > 0 {
				open[len(open)-1].levels++
				depth++
			}
		case "end":
			if len(open) > 0 {
				depth -= open[len(open)-1].levels
				rangeDepth -= open[len(open)-1].ranges
				open = open[:len(open)-1]
			}
		}
		deepest, deepestRange = max(deepest, depth), max(deepestRange, rangeDepth)
		i = len(text) - len(actionEnd(rest))
	}
	return deepest, deepestRange
}

// actionWord is the word an action's text s starts with, past spaces, and
// the text after it.
func actionWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t\r\n")
	n := 0
	for n < len(s) && (s[n] == '_' || 'a' <= s[n] && s[n] <= 'z' || 'A' <= s[n] && s[n] <= 'Z' || '0' <= s[n] && s[n] <= '9') {
		n++
	}
	return s[:n], s[n:]
}

// actionEnd is the text after the "}}" that ends the action s is inside,
// skipping quoted, raw and character strings; "" when it does not end.
func actionEnd(s string) string {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = quoteEnd(s, i)
		case '`':
			end := strings.IndexByte(s[i+1:], '`')
			if end < 0 {
				return ""
			}
			i += 1 + end
		case '}':
			if strings.HasPrefix(s[i:], "}}") {
				return s[i+2:]
			}
		}
	}
	return ""
}

// quoteEnd is the index of the quote that ends the string or character
// constant s[start] opens (backslash escapes), or of the line break or
// end of s where the lexer gives up on it.
func quoteEnd(s string, start int) int {
	for i := start + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\n':
			return i
		case s[start]:
			return i
		}
	}
	return len(s)
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
