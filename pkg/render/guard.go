package render

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Guard tells whether a message may quote a value decrypted for any of
// the renderings it was made from, in the forms a value takes on its way
// into a message through a template, a CEL expression or an admission
// policy: the value itself, in any case; its base64 forms and, for a value
// that is base64 (a Secret's data), the text it decodes to; and any piece
// of at least guardPiece characters of it (what substring, split or
// replace leave). It is the second line: a stage that evaluates secret
// data shows a static message whatever the guard says (see lint's
// admission and custom-check rules). A nil Guard guards nothing.
type Guard struct {
	exact  map[string]bool     // every value, lower-cased, however short
	whole  []string            // values of at least minSecretLen, lower-cased, and their encodings
	pieces map[string]struct{} // every guardPiece-long piece of those, lower-cased
}

// guardPiece is the shortest piece of a value a Guard finds on its own.
const guardPiece = 8

// NewGuard is the Guard of the values decrypted for results.
func NewGuard(results ...*Result) *Guard {
	g := &Guard{exact: map[string]bool{}, pieces: map[string]struct{}{}}
	for _, res := range results {
		g.Add(res)
	}
	return g
}

// Add adds the values decrypted for res.
func (g *Guard) Add(res *Result) {
	if res == nil || res.red == nil {
		return
	}
	for s := range res.red.exact {
		g.add(s)
	}
}

// Empty reports whether the guard knows no value.
func (g *Guard) Empty() bool { return g == nil || len(g.exact) == 0 }

func (g *Guard) add(s string) {
	low := strings.ToLower(s)
	if g.exact[low] {
		return
	}
	g.exact[low] = true
	if len(s) < minSecretLen {
		return
	}
	forms := []string{s}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(s)))
		if dec, err := enc.DecodeString(strings.TrimSpace(s)); err == nil && len(dec) >= minSecretLen && utf8.Valid(dec) {
			forms = append(forms, string(dec))
		}
	}
	for _, f := range forms {
		f = strings.ToLower(f)
		g.whole = append(g.whole, f)
		g.exact[f] = true
		for i := 0; i+guardPiece <= len(f); i++ {
			g.pieces[f[i:i+guardPiece]] = struct{}{}
		}
	}
}

// Quotes reports whether msg holds a value the guard knows, in one of
// its forms, or a piece of one.
func (g *Guard) Quotes(msg string) bool {
	if g.Empty() {
		return false
	}
	low := strings.ToLower(msg)
	if g.exact[low] {
		return true
	}
	for i := 0; i+guardPiece <= len(low); i++ {
		if _, ok := g.pieces[low[i:i+guardPiece]]; ok {
			return true
		}
	}
	for _, w := range g.whole {
		if len(w) < guardPiece && strings.Contains(low, w) {
			return true
		}
	}
	return false
}
