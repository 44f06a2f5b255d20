package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"unicode/utf8"
)

// TemplateFuncs returns, in a fresh map, the functions available to hint and
// confirmation templates besides text/template's built-ins:
//
//	json v        v encoded as JSON
//	quote s       s quoted with Go escapes, like fmt.Sprintf("%q", s)
//	join xs sep   the elements of a slice joined with sep
//	count xs      the length of a slice, map or string (0 for nil)
//	truncate s n  s cut to at most n runes, ending with "…" when cut
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		"json":     templateJSON,
		"quote":    func(v any) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
		"join":     templateJoin,
		"count":    templateCount,
		"truncate": templateTruncate,
	}
}

// ParseTemplate parses a hint or confirmation template with [TemplateFuncs] and
// missingkey=error, the way the runtime executes it.
func ParseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(TemplateFuncs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("tools: template %s: %w", name, err)
	}
	return t, nil
}

func templateJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func templateJoin(xs any, sep string) (string, error) {
	if xs == nil {
		return "", nil
	}
	v := reflect.ValueOf(xs)
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return "", fmt.Errorf("join: want a slice, got %T", xs)
	}
	parts := make([]string, v.Len())
	for i := range parts {
		parts[i] = fmt.Sprint(v.Index(i).Interface())
	}
	return strings.Join(parts, sep), nil
}

func templateCount(xs any) (int, error) {
	if xs == nil {
		return 0, nil
	}
	v := reflect.ValueOf(xs)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String, reflect.Chan:
		return v.Len(), nil
	}
	return 0, fmt.Errorf("count: want a slice, map or string, got %T", xs)
}

func templateTruncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
