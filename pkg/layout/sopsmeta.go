package layout

import (
	"strconv"
	"strings"
	"sync"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// metadataSet holds each distinct SOPS metadata its files carry once: the
// secret values files of a repository are mostly encrypted alike (the same
// sops version, settings and keys), and a Files keeps every file's
// metadata for the run, so 20,000 of them would otherwise hold 20,000
// copies of the same few strings.
type metadataSet struct {
	mu sync.Mutex
	by map[string]*sopsfile.Metadata
}

// one returns the Metadata equal to md held so far, holding md when there
// is none; nil for nil.
func (s *metadataSet) one(md *sopsfile.Metadata) *sopsfile.Metadata {
	if md == nil {
		return nil
	}
	k := metadataKey(md)
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.by[k]; ok {
		return held
	}
	if s.by == nil {
		s.by = map[string]*sopsfile.Metadata{}
	}
	s.by[k] = md
	return md
}

// metadataKey is md's every field, each quoted, so that two Metadata have
// the same key exactly when they are equal.
func metadataKey(md *sopsfile.Metadata) string {
	var b strings.Builder
	for _, v := range []string{md.Version, strconv.FormatBool(md.HasMAC), md.EncryptedRegex, md.UnencryptedRegex,
		md.EncryptedSuffix, md.UnencryptedSuffix, strconv.Itoa(len(md.Recipients))} {
		b.WriteString(strconv.Quote(v))
	}
	for _, r := range md.Recipients {
		b.WriteString(strconv.Quote(r))
	}
	for _, k := range md.Keys {
		b.WriteString(strconv.Quote(k.Kind))
		b.WriteString(strconv.Quote(k.ID))
	}
	return b.String()
}
