package schema

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/yamlpos"
)

// Schema messages describe what is wrong with a value, never the value
// itself: the object may hold a decrypted secret, and a finding is printed,
// stored and uploaded. jsonschema's messages quote values ("'<value>' does
// not match pattern ...", "minimum: got <value>, ..."), so every message is
// rebuilt here from a closed list of forms, keeping only what comes from
// the schema (patterns, limits, formats, property names); a message of any
// other form becomes a generic one. Property lists are sorted, so the same
// object always gives the same message.

var (
	additionalRE = regexp.MustCompile(`^additional properties ('[^']*'(?:, '[^']*')*) not allowed$`)
	missingRE    = regexp.MustCompile(`^missing propert(?:y|ies) ('[^']*'(?:, '[^']*')*)$`)
	typeRE       = regexp.MustCompile(`^got (\w+), want ([\w ]+)$`)
	countRE      = regexp.MustCompile(`^(minItems|maxItems|minProperties|maxProperties|minLength|maxLength): got [\d,]+, want ([\d,]+)$`)
	limitRE      = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): got .*, want ([-0-9.,eE+×⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)$`)
	quotedRE     = regexp.MustCompile(`'([^']*)'`)
	safeRE       = regexp.MustCompile(`^(?:value must be (?:one of )?.*|'(?:not|allOf|anyOf|oneOf|enum|const|contentSchema)' failed.*|false schema|items at \d+ and \d+ are equal|last \d+ additionalItem\(s\) not allowed|no items match contains schema)$`)
)

// formats are the string formats messages may name.
var formats = []string{"date", "date-time", "duration", "email", "hostname", "idn-email", "idn-hostname", "int-or-string", "ipv4", "ipv6", "iri", "iri-reference", "json-pointer", "period", "regex", "relative-json-pointer", "time", "uri", "uri-reference", "uri-template", "uuid", "byte", "quantity"}

var limitWords = map[string]string{
	"minItems": "must have at least %s items", "maxItems": "must have at most %s items",
	"minProperties": "must have at least %s properties", "maxProperties": "must have at most %s properties",
	"minLength": "must be at least %s characters long", "maxLength": "must be at most %s characters long",
	"minimum": "must be at least %s", "maximum": "must be at most %s",
	"exclusiveMinimum": "must be more than %s", "exclusiveMaximum": "must be less than %s",
	"multipleOf": "must be a multiple of %s",
}

// safeMessage rebuilds a jsonschema leaf message without any value from the
// validated object. unknown are the property names of an "additional
// properties" message, sorted.
func safeMessage(msg string) (string, []string) {
	switch {
	case additionalRE.MatchString(msg):
		names := quotedNames(additionalRE.FindStringSubmatch(msg)[1])
		return "additional properties " + quoteJoin(names) + " not allowed", names
	case missingRE.MatchString(msg):
		names := quotedNames(missingRE.FindStringSubmatch(msg)[1])
		word := "property"
		if len(names) > 1 {
			word = "properties"
		}
		return "missing " + word + " " + quoteJoin(names), nil
	case typeRE.MatchString(msg):
		m := typeRE.FindStringSubmatch(msg)
		return "got " + m[1] + ", want " + m[2], nil
	case countRE.MatchString(msg):
		m := countRE.FindStringSubmatch(msg)
		return strings.Replace(limitWords[m[1]], "%s", m[2], 1), nil
	case limitRE.MatchString(msg):
		m := limitRE.FindStringSubmatch(msg)
		return strings.Replace(limitWords[m[1]], "%s", m[2], 1), nil
	case strings.HasSuffix(msg, "'") && strings.Contains(msg, " does not match pattern '"):
		i := strings.LastIndex(msg, " does not match pattern '")
		return "does not match the pattern " + msg[i+len(" does not match pattern "):], nil
	case strings.Contains(msg, " is not valid "):
		// "<value> is not valid <format>: <reason>": the value and the
		// reason may quote it; the format is taken only from the known ones.
		for _, f := range formats {
			if strings.Contains(msg, " is not valid "+f+":") || strings.HasSuffix(msg, " is not valid "+f) {
				return "is not a valid " + f, nil
			}
		}
		return "does not have the format the schema requires", nil
	case strings.HasPrefix(msg, "value must be one of ") && strings.Contains(msg, "<nil>"):
		// The null every enum accepts (see Convert) is not worth naming.
		list := strings.Split(strings.TrimPrefix(msg, "value must be one of "), ", ")
		list = slices.DeleteFunc(list, func(s string) bool { return s == "<nil>" })
		if len(list) == 1 {
			return "value must be " + list[0], nil
		}
		return "value must be one of " + strings.Join(list, ", "), nil
	case safeRE.MatchString(msg):
		return msg, nil // names schema keywords, or the schema's own values
	}
	return "does not match the schema", nil
}

func quotedNames(s string) []string {
	var out []string
	for _, m := range quotedRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}

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
