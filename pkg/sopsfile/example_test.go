package sopsfile_test

import (
	"fmt"
	"os"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// Tell an encrypted values file from a plain one, and read how it was
// encrypted, without decrypting it (no key is needed).
func ExampleInspect() {
	data, err := os.ReadFile("../../testdata/monorepo/clusters/dev-cluster/namespace-a/dev-values-a.secret.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	md, err := sopsfile.Inspect(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("encrypted for:", md.Recipients, "with a MAC:", md.HasMAC)
	fmt.Println("encrypted keys:", md.EncryptedRegex)

	_, err = sopsfile.Inspect([]byte("secrets:\n  token: plain-text\n"))
	fmt.Println(err)
	fmt.Println(sopsfile.IsEncryptedValue("ENC[AES256_GCM,data:abc=,iv:def=,tag:ghi=,type:str]"))
	// Output:
	// encrypted for: [age] with a MAC: true
	// encrypted keys: ^(secrets|token|password|apiKey|privateKey)$
	// not SOPS-encrypted: no top-level sops metadata
	// true
}
