// Package jsonptr escapes and splits the reference tokens of JSON pointers
// (RFC 6901), for every package that names a field by its pointer: schema
// messages, the fields where secret values land, diff's changed fields,
// admission findings and the positions lint reports them at.
package jsonptr

import (
	"strconv"
	"strings"
)

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// Split is a JSON pointer's reference tokens, unescaped ("~1" is "/",
// "~0" is "~"): the one place pointers are taken apart, so that a field
// under a key such as app.kubernetes.io/name is found by its key. The
// root ("" or "/") has none; a pointer without its leading "/" is read as
// if it had one.
func Split(pointer string) []string {
	pointer = strings.TrimPrefix(pointer, "/")
	if pointer == "" {
		return nil
	}
	tokens := strings.Split(pointer, "/")
	for i, t := range tokens {
		tokens[i] = unescaper.Replace(t)
	}
	return tokens
}

// Escape is token as a JSON pointer's reference token: "~" as "~0" and
// "/" as "~1".
func Escape(token string) string { return escaper.Replace(token) }

// Join writes tokens as a JSON pointer, each escaped: Split's inverse.
func Join(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteString("/" + Escape(t))
	}
	return b.String()
}

// Get returns the value that tokens (a JSON pointer's tokens, unescaped)
// lead to in v, a decoded JSON or YAML value: a key of each map, an index
// of each list. ok is false when a token leads nowhere.
func Get(v any, tokens []string) (_ any, ok bool) {
	for _, tok := range tokens {
		switch c := v.(type) {
		case map[string]any:
			if v, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
