package decrypt

import (
	"context"

	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/keyservice"
	"google.golang.org/grpc"
)

// ageService is a key service that decrypts age-encrypted data keys with
// identities held in memory, and hands every other key type to next. sops'
// local key service cannot: it rebuilds each age key from its recipient
// and looks for identities in the environment.
type ageService struct {
	ids  sopsage.ParsedIdentities
	next keyservice.KeyServiceClient
}

func (a ageService) Encrypt(ctx context.Context, req *keyservice.EncryptRequest, opts ...grpc.CallOption) (*keyservice.EncryptResponse, error) {
	return a.next.Encrypt(ctx, req, opts...)
}

func (a ageService) Decrypt(ctx context.Context, req *keyservice.DecryptRequest, opts ...grpc.CallOption) (*keyservice.DecryptResponse, error) {
	k, ok := req.Key.GetKeyType().(*keyservice.Key_AgeKey)
	if !ok {
		return a.next.Decrypt(ctx, req, opts...)
	}
	mk := sopsage.MasterKey{Recipient: k.AgeKey.Recipient, EncryptedKey: string(req.Ciphertext)}
	a.ids.ApplyToMasterKey(&mk)
	plain, err := mk.Decrypt()
	if err != nil {
		return nil, err
	}
	return &keyservice.DecryptResponse{Plaintext: plain}, nil
}
