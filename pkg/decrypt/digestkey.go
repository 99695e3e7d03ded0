package decrypt

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"

	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	sopsconfig "github.com/getsops/sops/v3/config"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// DigestKeyer is a Decrypter that also derives, from what only a holder
// of a file's keys can know, a secret key for keyed digests of what the
// file's values make: hydrate keys the digests that let it keep a sealed
// Secret's ciphertext with it. The key is as secret as the file's values
// and stable while the file keeps its data key (sops edit keeps it; sops
// rotate makes a new one).
type DigestKeyer interface {
	Decrypter
	DigestKey(ctx context.Context, file string, data []byte) ([]byte, error)
}

// digestKeyInfo separates this use of a file's data key from every other.
const digestKeyInfo = "repotool digest key v1"

// DigestKey implements DigestKeyer: 32 bytes derived (HKDF-SHA256) from
// the SOPS data key of data, never the data key itself. Errors are those of
// Decrypt, naming the file, never content.
func (s *SOPS) DigestKey(_ context.Context, file string, data []byte) (out []byte, err error) {
	if !sopsfile.IsEncrypted(data) {
		return nil, NotEncrypted(file)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &Error{File: file, Reason: "the SOPS library failed unexpectedly", Detail: fmt.Sprint(p), showDetail: true}
		}
	}()
	store := common.StoreForFormat(formats.Yaml, sopsconfig.NewStoresConfig())
	tree, err := store.LoadEncryptedFile(data)
	if err == nil {
		var key []byte
		if key, err = tree.Metadata.GetDataKeyWithKeyServices(s.keyServices(), nil); err == nil {
			return hkdf.Key(sha256.New, key, nil, digestKeyInfo, 32)
		}
	}
	e := sopsError(file, err)
	if md, _ := sopsfile.Inspect(data); md != nil {
		e.forRecipients(md.Recipients, s.hasAgeKey())
	}
	return nil, e
}
