package appset

import (
	"cmp"
	"path"
	"regexp"
	"strings"
	"sync"
)

// pathspecMatch reports whether git ls-files -- pattern lists the file
// p, as the git files generator lists files by default (Argo CD's
// "new globbing" off): a pattern without wildcards matches the file or
// the files under it; one with wildcards matches the whole path, '*'
// and '?' matching '/' too (git's pathspecs without the glob magic).
func pathspecMatch(pattern, p string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	if !strings.ContainsAny(pattern, `*?[\`) {
		pattern = strings.TrimSuffix(pattern, "/")
		return pattern == "" || pattern == "." || p == pattern || strings.HasPrefix(p, pattern+"/")
	}
	re := wildmatch(pattern)
	return re != nil && re.MatchString(p)
}

var (
	wildMu    sync.Mutex
	wildCache = map[string]*regexp.Regexp{}
)

// wildmatch is git's wildmatch without WM_PATHNAME as a regular
// expression; nil for a pattern that matches nothing (an unclosed '[').
func wildmatch(pattern string) *regexp.Regexp {
	wildMu.Lock()
	defer wildMu.Unlock()
	if re, ok := wildCache[pattern]; ok {
		return re
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	ok := true
	for i := 0; i < len(pattern) && ok; i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '\\':
			if i+1 < len(pattern) {
				i++
			}
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		case '[':
			var n int
			n, ok = bracket(&b, pattern[i+1:])
			i += n
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	var re *regexp.Regexp
	if ok {
		re, _ = regexp.Compile(b.String())
	}
	wildCache[pattern] = re
	return re
}

// bracket writes the bracket expression that rest (after its '[')
// begins with, returning how many bytes of rest it took; false when it
// has no closing ']'.
func bracket(b *strings.Builder, rest string) (int, bool) {
	i := 0
	b.WriteByte('[')
	if i < len(rest) && (rest[i] == '!' || rest[i] == '^') {
		b.WriteByte('^')
		i++
	}
	first := true
	for i < len(rest) {
		c := rest[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return i + 1, true
		case c == '[' && strings.HasPrefix(rest[i:], "[:"):
			end := strings.Index(rest[i+2:], ":]")
			if end < 0 {
				return 0, false
			}
			b.WriteString(rest[i : i+2+end+2])
			i += 2 + end + 2
		case c == '\\' && i+1 < len(rest):
			b.WriteString(regexp.QuoteMeta(rest[i+1 : i+2]))
			i += 2
		case c == '-' && !first && i+1 < len(rest) && rest[i+1] != ']':
			b.WriteByte('-')
			i++
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
			i++
		}
		first = false
	}
	return 0, false
}

// globBase is the folder above a git generator's pattern's first
// wildcard: a file added below it may change what the generator makes.
func globBase(g string) string {
	i := strings.IndexAny(g, `*?[\`)
	if i < 0 {
		return strings.TrimSuffix(g, "/")
	}
	return cmp.Or(path.Dir(g[:i]+"x"), ".")
}
