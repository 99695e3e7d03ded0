package decrypt

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"

	"github.com/getsops/sops/v3"
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
func (s *SOPS) DigestKey(ctx context.Context, file string, data []byte) ([]byte, error) {
	return s.withDataKey(ctx, file, data, func(_ sops.Store, _ *sops.Tree, key []byte) ([]byte, error) {
		return hkdf.Key(sha256.New, key, nil, digestKeyInfo, 32)
	})
}
