package testtool

import (
	"crypto/rsa"
	"encoding/pem"
	"sync"
	"time"

	sscrypto "github.com/bitnami-labs/sealed-secrets/pkg/crypto"
)

// sealedSecretsKey is made once per test binary: a 2048-bit key takes a
// while.
var sealedSecretsKey = sync.OnceValues(func() (*rsa.PrivateKey, string) {
	key, cert, err := sscrypto.GeneratePrivateKeyAndCert(2048, 24*time.Hour, "sealed-secrets-test")
	if err != nil {
		panic(err)
	}
	return key, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
})

// SealedSecretsKey is a sealed-secrets controller's private key for tests,
// made by the sealed-secrets module's own code as the controller makes its
// keys, and its certificate in PEM, as kubeseal --fetch-cert prints it.
func SealedSecretsKey() (*rsa.PrivateKey, string) { return sealedSecretsKey() }

// SealedSecretsCert is SealedSecretsKey's certificate.
func SealedSecretsCert() string {
	_, cert := sealedSecretsKey()
	return cert
}
