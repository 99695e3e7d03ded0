package migrate_test

import (
	"fmt"
	"os"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/migrate"
)

// Plan works out the change; Diff shows it, Write applies it.
func ExamplePlan() {
	fsys := fstest.MapFS{"bootstrap/db.yaml": {Data: []byte(`apiVersion: kubernetes-client.io/v1
kind: ExternalSecret
metadata:
  name: db
spec:
  backendType: systemManager
  region: eu-west-1
  data:
    - key: /app/db/password
      name: password
`)}}
	res, err := migrate.Plan(fsys, migrate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(res.Files[0].New))
	_ = res.WriteReport(os.Stdout, false)
	// Output:
	// apiVersion: external-secrets.io/v1
	// kind: ExternalSecret
	// metadata:
	//   name: db
	// spec:
	//   secretStoreRef:
	//     kind: SecretStore
	//     name: kes-aws-parameterstore-45964ed1
	//   target:
	//     name: db
	//   data:
	//     - secretKey: password
	//       remoteRef:
	//         key: /app/db/password
	// converted (1):
	//   bootstrap/db.yaml:1 db: SecretStore kes-aws-parameterstore-45964ed1
	// dry run: 2 file(s) would change; --write writes them
}
