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

// minControl is the fewest bytes a control action takes ("{{if.}}"): a
// text shorter than MaxControlNesting of them cannot nest deeper.
const minControl = len("{{if.}}")

// checkControls fails text whose control actions nest deeper than
// MaxControlNesting, with a message in the form of a parse error.
func checkControls(name, text string) error {
	if len(text) < minControl*MaxControlNesting || controlNesting(text, MaxControlNesting) <= MaxControlNesting {
		return nil
	}
	return limitError(fmt.Sprintf("template: %s: the control actions (if, range, with, block, define, else if) nest more than %d deep (repotool's limit)",
		name, MaxControlNesting))
}

// controlNesting is how deep the control actions of text nest, read as
// text/template's lexer reads actions (the "{{- " trim marker, comments,
// and quoted, raw and character strings, in which a "}}" or a keyword is
// text), up to limit+1. It never counts less than text/template's parser
// nests, on the part of text the parser reads before any error:
// FuzzControlNesting holds it to that.
func controlNesting(text string, limit int) int {
	var open []int // for each open control action, the levels its end closes
	depth, deepest := 0, 0
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
		case "if", "range", "with", "block", "define":
			open = append(open, 1)
			depth++
		case "else":
			if next, _ := actionWord(rest); (next == "if" || next == "with") && len(open) > 0 {
				open[len(open)-1]++
				depth++
			}
		case "end":
			if len(open) > 0 {
				depth -= open[len(open)-1]
				open = open[:len(open)-1]
			}
		}
		deepest = max(deepest, depth)
		i = len(text) - len(actionEnd(rest))
	}
	return deepest
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
