package render

import (
	"testing"
)

func TestTemplateFile(t *testing.T) {
	origins := map[string]string{
		"app":                           "namespaces/app",
		"app/charts/lib":                "lib",
		"app/charts/redis":              "namespaces/app/charts/redis-1.0.0.tgz",
		"app/charts/redis/charts/inner": "namespaces/app/charts/redis-1.0.0.tgz",
	}
	for _, tc := range []struct{ tpl, file, member string }{
		{"app/templates/a.yaml", "namespaces/app/templates/a.yaml", ""},
		{"app/charts/lib/templates/b.yaml", "lib/templates/b.yaml", ""},
		{"app/charts/redis/templates/d.yaml", "namespaces/app/charts/redis-1.0.0.tgz", "redis/templates/d.yaml"},
		{"app/charts/redis/charts/inner/templates/c.yaml", "namespaces/app/charts/redis-1.0.0.tgz", "redis/charts/inner/templates/c.yaml"},
		{"other/templates/x.yaml", "", ""},
		{"application/templates/x.yaml", "", ""},
	} {
		file, member := templateFile(tc.tpl, origins)
		if file != tc.file || member != tc.member {
			t.Errorf("templateFile(%q) = %q, %q; want %q, %q", tc.tpl, file, member, tc.file, tc.member)
		}
	}
}
