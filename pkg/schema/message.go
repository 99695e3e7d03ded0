package schema

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/internal/yamlpos"
)

// Schema messages describe what is wrong with a value, never the value
// itself: the object may hold a decrypted secret, and a finding is printed,
// stored and uploaded. They are built from the structure of the validation
// error (its kind and the schema's side of it: patterns, limits, formats,
// enums, property names), never from jsonschema's message text, which
// quotes values ("'<value>' does not match pattern ...", "minimum: got
// <value>, ..."). A kind not listed here becomes a generic message.
// Property lists are sorted, so the same object always gives the same
// message.

// printer formats numbers as jsonschema's English messages do.
var printer = message.NewPrinter(language.English)

// formats are the string formats messages may name.
var formats = []string{
	"date",
	"date-time",
	"duration",
	"email",
	"hostname",
	"idn-email",
	"idn-hostname",
	"int-or-string",
	"ipv4",
	"ipv6",
	"iri",
	"iri-reference",
	"json-pointer",
	"period",
	"regex",
	"relative-json-pointer",
	"time",
	"uri",
	"uri-reference",
	"uri-template",
	"uuid",
	"byte",
	"quantity",
}

// fieldErrors flattens a validation error tree into one FieldError per
// failed keyword, at the instance location it failed at. The root ("the
// schema failed") and the groups and references that only gather their
// causes are left out.
func fieldErrors(ve *jsonschema.ValidationError) []FieldError {
	var out []FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference:
		default:
			out = append(out, fieldError(e))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func fieldError(e *jsonschema.ValidationError) FieldError {
	fe := FieldError{Path: jsonPointer(e.InstanceLocation)}
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		fe.Keyword = kp[len(kp)-1]
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		fe.Unknown = sortedUnique(k.Properties)
		fe.Message = "additional properties " + quoteJoin(fe.Unknown) + " not allowed"
	case *kind.Required:
		fe.Missing = sortedUnique(k.Missing)
		word := "property"
		if len(fe.Missing) > 1 {
			word = "properties"
		}
		fe.Message = "missing " + word + " " + quoteJoin(fe.Missing)
	case *kind.Type:
		fe.Message = "got " + k.Got + ", want " + strings.Join(k.Want, " or ")
	case *kind.MinItems:
		fe.Message = printer.Sprintf("must have at least %d items", k.Want)
	case *kind.MaxItems:
		fe.Message = printer.Sprintf("must have at most %d items", k.Want)
	case *kind.MinProperties:
		fe.Message = printer.Sprintf("must have at least %d properties", k.Want)
	case *kind.MaxProperties:
		fe.Message = printer.Sprintf("must have at most %d properties", k.Want)
	case *kind.MinLength:
		fe.Message = printer.Sprintf("must be at least %d characters long", k.Want)
	case *kind.MaxLength:
		fe.Message = printer.Sprintf("must be at most %d characters long", k.Want)
	case *kind.Minimum:
		fe.Message = "must be at least " + number(k.Want.Float64())
	case *kind.Maximum:
		fe.Message = "must be at most " + number(k.Want.Float64())
	case *kind.ExclusiveMinimum:
		fe.Message = "must be more than " + number(k.Want.Float64())
	case *kind.ExclusiveMaximum:
		fe.Message = "must be less than " + number(k.Want.Float64())
	case *kind.MultipleOf:
		fe.Message = "must be a multiple of " + number(k.Want.Float64())
	case *kind.Pattern:
		fe.Message = "does not match the pattern " + quote(k.Want)
	case *kind.Format:
		fe.Message = "does not have the format the schema requires"
		if slices.Contains(formats, k.Want) {
			fe.Message = "is not a valid " + k.Want
		}
	case *kind.Enum:
		// The null every enum accepts (see Convert) is not worth naming.
		fe.Message = oneOfValues(slices.DeleteFunc(slices.Clone(k.Want), func(v any) bool { return v == nil }), "'enum' failed")
	case *kind.Const:
		fe.Message = oneOfValues([]any{k.Want}, "'const' failed")
	case *kind.OneOf:
		fe.Message = "'oneOf' failed, none matched"
		if len(k.Subschemas) >= 2 {
			fe.Message = printer.Sprintf("'oneOf' failed, subschemas %d, %d matched", k.Subschemas[0], k.Subschemas[1])
		}
	case *kind.AnyOf:
		fe.Message = "'anyOf' failed"
	case *kind.AllOf:
		fe.Message = "'allOf' failed"
	case *kind.Not:
		fe.Keyword, fe.Message = "not", "'not' failed"
	case *kind.FalseSchema:
		fe.Message = "false schema"
	case *kind.UniqueItems:
		fe.Message = printer.Sprintf("items at %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.AdditionalItems:
		fe.Message = printer.Sprintf("last %d additionalItem(s) not allowed", k.Count)
	case *kind.Contains:
		fe.Message = "no items match contains schema"
	case *kind.ContentSchema:
		fe.Message = "'contentSchema' failed"
	default:
		fe.Message = "does not match the schema"
	}
	return fe
}

// oneOfValues is "value must be X" or "value must be one of X, Y" for the
// schema's own values; other when one is not a scalar.
func oneOfValues(want []any, other string) string {
	var shown []string
	for _, v := range want {
		switch v := v.(type) {
		case []any, map[string]any:
			return other
		case string:
			shown = append(shown, quote(v))
		default:
			shown = append(shown, fmt.Sprintf("%v", v))
		}
	}
	if len(shown) == 1 {
		return "value must be " + shown[0]
	}
	return "value must be one of " + strings.Join(shown, ", ")
}

// number formats a limit of the schema as jsonschema's messages do.
func number(f float64, _ bool) string { return printer.Sprintf("%v", f) }

// quote quotes a name or a schema value as jsonschema's messages do.
func quote(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonPointer joins an instance location into a JSON pointer.
func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(jsonptr.Escape(t))
	}
	return b.String()
}

var quotedRE = regexp.MustCompile(`'([^']*)'`)

// safeError removes quoted content (`...`, '...') from an error about an
// object that could not be validated at all, where parsers quote what they
// could not read. Double-quoted key names in duplicate-key messages stay.
func safeError(err error) error {
	if err == nil {
		return nil
	}
	msg := yamlpos.Redact(err.Error())
	msg = quotedRE.ReplaceAllString(msg, "'…'")
	return errors.New(msg)
}
