package schema_test

import (
	"fmt"

	"github.com/repotool/repotool/pkg/schema"
)

// Validate a rendered object against the embedded schemas of the cluster's
// Kubernetes version, offline.
func ExampleValidator_Validate() {
	v, err := schema.New(schema.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()
	r := v.Validate("v1.33.5", []byte(`apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: "80"
      targetPort: http
  selctor:
    app: web
`))
	fmt.Println(r.Status)
	for _, e := range r.Errors {
		fmt.Printf("%s: %s\n", e.Path, e.Message)
	}
	// Output:
	// invalid
	// /spec: additional properties 'selctor' not allowed
	// /spec/ports/0/port: got string, want null or integer
}
