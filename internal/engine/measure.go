package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// measured is f, which prints or encodes v, with v measured first.
func measured(f func(any) string) func(any) (string, error) {
	return func(v any) (string, error) {
		if err := checkPrinted(0, v); err != nil {
			return "", err
		}
		return f(v), nil
	}
}

// measuredN is measured for a function of any number of values.
func measuredN(f func(...any) string) func(...any) (string, error) {
	return func(v ...any) (string, error) {
		if err := checkPrinted(0, v...); err != nil {
			return "", err
		}
		return f(v...), nil
	}
}

// checkPrinted fails when args, printed, would take more than
// MaxValueSize bytes beside extra, or nest too deep to print.
func checkPrinted(extra int, args ...any) error {
	m := measure{limit: MaxValueSize - extra}
	if m.limit < 0 {
		return tooLarge("more than that")
	}
	total := 0
	for _, a := range args {
		total += m.size(reflect.ValueOf(a), 0)
		if m.deep {
			return limitError(fmt.Sprintf("a value nests deeper than %d levels, or holds itself: it cannot be printed (repotool's limit)", maxDepth/2))
		}
		if total > m.limit {
			return tooLarge("more than that")
		}
	}
	return nil
}

// measure estimates how many bytes values print as, from below, closely
// enough to stop allocations that would not fit: strings and byte slices
// count their length, other scalars a few bytes, lists and maps their
// items. A dict or list held in many places counts each time it is held
// (it prints each time), but is measured once.
type measure struct {
	limit int
	deep  bool
	// sizes are the dicts' and lists' sizes measured, by address.
	sizes map[[2]uintptr]int
}

// size is v's size, or a number over the limit as soon as it is clear
// that v is larger than that.
func (m *measure) size(v reflect.Value, depth int) int {
	if depth > maxDepth {
		m.deep = true
	}
	if m.deep {
		return m.limit + 1
	}
	switch v.Kind() {
	case reflect.Invalid:
		return 5
	case reflect.String:
		return v.Len() + 1
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return 5
		}
		return m.size(v.Elem(), depth+1)
	case reflect.Slice, reflect.Map:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() + 1
		}
		if v.Len() == 0 {
			return 2
		}
		key := [2]uintptr{v.Pointer(), uintptr(v.Len())}
		if n, ok := m.sizes[key]; ok {
			return n
		}
		n := m.items(v, depth)
		if m.sizes == nil {
			m.sizes = map[[2]uintptr]int{}
		}
		m.sizes[key] = n
		return n
	case reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() + 1
		}
		return m.items(v, depth)
	case reflect.Struct:
		n := 2
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if n += m.size(v.Field(i), depth+1); n > m.limit {
					break
				}
			}
		}
		return n
	default:
		return 2
	}
}

// items is the size of a list's or map's items.
func (m *measure) items(v reflect.Value, depth int) int {
	n := 2
	if v.Kind() == reflect.Map {
		for it := v.MapRange(); it.Next() && n <= m.limit; {
			n += m.size(it.Key(), depth+1) + m.size(it.Value(), depth+1)
		}
		return n
	}
	for i := 0; i < v.Len() && n <= m.limit; i++ {
		n += m.size(v.Index(i), depth+1)
	}
	return n
}

// widths is the sum of the widths and precisions a printf format asks
// for: "%1000000d" prints a million bytes.
func widths(format string) int {
	sum := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0; i++ {
		}
		for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.') {
			j := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			if n, err := strconv.Atoi(format[j:i]); err == nil {
				sum += min(n, 1_000_000) // fmt refuses wider
			}
			if i < len(format) && format[i] == '.' {
				i++
			}
		}
	}
	return sum
}
