// Package jsonptr escapes the reference tokens of JSON pointers (RFC
// 6901), for every package that names a field by its pointer: schema
// messages, the fields where secret values land, diff's changed fields.
package jsonptr

import "strings"

var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// Escape is token as a JSON pointer's reference token: "~" as "~0" and
// "/" as "~1".
func Escape(token string) string { return escaper.Replace(token) }
