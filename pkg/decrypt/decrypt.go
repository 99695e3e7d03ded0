package decrypt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/cmd/sops/common"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	sopsconfig "github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keyservice"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Decrypter decrypts a SOPS-encrypted YAML document in memory. file is the
// document's repository path, for messages only: implementations must not
// read or write it.
type Decrypter interface {
	Decrypt(ctx context.Context, file string, data []byte) ([]byte, error)
}

// Options configure a SOPS decrypter.
type Options struct {
	// AgeIdentities are age private keys ("AGE-SECRET-KEY-1..."; a string
	// may hold several, one per line, with # comments), used for the
	// files' age recipients instead of the environment's age keys. Empty:
	// the environment's, found where the sops CLI looks for them.
	AgeIdentities []string
	// Keys allows the keys that are not age identities: key services
	// (AWS, GCP and Huawei KMS, Azure Key Vault, HashiCorp Vault), PGP
	// keys (gpg runs) and age plugins (age-plugin-<name> runs), each by
	// its identity. The zero policy allows none: a file's metadata is
	// content under review and may name any address, so a key it names
	// is used only when the operator allows it here (see docs/security.md).
	Keys sopsfile.KeyPolicy
	// KeyTimeout bounds each request to an allowed key service (default
	// DefaultKeyTimeout): a service that does not answer fails the file,
	// named.
	KeyTimeout time.Duration
}

// SOPS decrypts with the SOPS library, age keys in process and nothing
// else unless allowed (Options.Keys). The zero value finds age identities
// in the environment, as the sops CLI does, and allows no other key;
// NewSOPS takes age identities in memory and allowances.
type SOPS struct {
	given   sopsage.ParsedIdentities
	policy  sopsfile.KeyPolicy
	timeout time.Duration

	agesOnce sync.Once
	agesKeys *ageKeys
	// silent are the allowed keys that did not answer in time: a run
	// waits for a key service that is down once, not once per file.
	silent sync.Map
}

// NewSOPS returns a SOPS decrypter configured by opts. An age identity
// that does not parse is an error that says which one (by position), never
// what it holds.
func NewSOPS(opts Options) (*SOPS, error) {
	s := &SOPS{policy: opts.Keys, timeout: opts.KeyTimeout}
	for i, id := range opts.AgeIdentities {
		if err := s.given.Import(id); err != nil {
			return nil, fmt.Errorf("age identity %d is not a valid age private key (AGE-SECRET-KEY-1..., one per line)", i+1)
		}
	}
	if len(opts.AgeIdentities) > 0 && len(s.given) == 0 {
		return nil, errors.New("the age identities given hold no key (only blank lines or comments)")
	}
	return s, nil
}

// Policy is the decrypter's key policy.
func (s *SOPS) Policy() sopsfile.KeyPolicy { return s.policy }

// ages are the decrypter's age identities, made once.
func (s *SOPS) ages() *ageKeys {
	s.agesOnce.Do(func() {
		s.agesKeys = &ageKeys{given: s.given, plugins: func(name string) bool {
			return s.policy.Allows(sopsfile.Key{Kind: sopsfile.KindAgePlugin, ID: name})
		}}
	})
	return s.agesKeys
}

func (s *SOPS) keyTimeout() time.Duration {
	if s.timeout > 0 {
		return s.timeout
	}
	return DefaultKeyTimeout
}

// Decrypt implements Decrypter.
func (s *SOPS) Decrypt(ctx context.Context, file string, data []byte) ([]byte, error) {
	return s.withDataKey(ctx, file, data, decryptTree)
}

// treeFunc is what withDataKey does with a file's tree and data key.
type treeFunc func(store sops.Store, tree *sops.Tree, key []byte) ([]byte, error)

// withDataKey runs fn with data's tree and its data key, recovered
// through keyServices, and turns any failure into an *Error naming file
// and what its recipients need. A panic inside the SOPS library (sops
// 3.13 panics, for one, when SOPS_AGE_KEY_CMD is set but empty) becomes an
// *Error instead of crashing the caller.
func (s *SOPS) withDataKey(ctx context.Context, file string, data []byte, fn treeFunc) (out []byte, err error) {
	if !sopsfile.IsEncrypted(data) {
		// Never let sops parse it: its parser errors quote content.
		return nil, NotEncrypted(file)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &Error{File: file, Reason: "the SOPS library failed unexpectedly",
				Hint:   "check the SOPS key settings in the environment (an empty SOPS_AGE_KEY_CMD, for one, crashes sops 3.13: unset it)",
				Detail: fmt.Sprint(p), showDetail: true}
		}
	}()
	store := common.StoreForFormat(formats.Yaml, sopsconfig.NewStoresConfig())
	tree, err := store.LoadEncryptedFile(data)
	if err != nil {
		return nil, sopsError(file, err)
	}
	ks := s.newKeyService(ctx)
	key, err := tree.Metadata.GetDataKeyWithKeyServices([]keyservice.KeyServiceClient{ks}, nil)
	if err != nil {
		if ctx != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := sopsError(file, err)
		if md, _ := sopsfile.Inspect(data); md != nil {
			e.forRecipients(md.Recipients, s.ages().any())
		}
		errs := s.ages().loadErrors()
		if len(errs) > 0 && (strings.HasPrefix(e.Reason, reasonNoKey) || strings.HasPrefix(e.Reason, reasonOtherRecip)) {
			e.Hint += "; of the age identities set here, these could not be used: " + strings.Join(errs, "; ")
		}
		ks.explain(e)
		return nil, e
	}
	if out, err = fn(store, &tree, key); err != nil {
		return nil, sopsError(file, err)
	}
	return out, nil
}

// decryptTree is sops' decrypt.DataWithFormat for YAML, given the tree's
// data key.
func decryptTree(store sops.Store, tree *sops.Tree, key []byte) ([]byte, error) {
	cipher := aes.NewCipher()
	mac, err := tree.Decrypt(key, cipher)
	if err != nil {
		return nil, err
	}
	originalMAC, err := cipher.Decrypt(tree.Metadata.MessageAuthenticationCode, key, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil {
		return nil, fmt.Errorf("Failed to decrypt original mac: %w", err)
	}
	if originalMAC != mac {
		return nil, errors.New("Failed to verify data integrity") // sops' words; never the MACs
	}
	return store.EmitPlainFile(tree.Branches)
}

// Error is a SOPS file that could not be decrypted. Its message says why in
// plain words; it never contains decrypted content.
type Error struct {
	File   string
	Reason string
	Hint   string
	// Detail is sops' own message, for debugging. Error includes it only
	// when the reason could not be put in plain words.
	Detail string

	showDetail bool
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: cannot decrypt: %s", e.File, e.Reason)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	if e.showDetail && e.Detail != "" {
		s += " (sops: " + e.Detail + ")"
	}
	return s
}

// sopsError puts an error of the SOPS library in plain words.
func sopsError(file string, err error) *Error {
	detail := err.Error()
	var ue sops.UserError
	if errors.As(err, &ue) {
		detail = ue.UserError()
	}
	detail = strings.Join(strings.Fields(stripANSI(detail)), " ")
	e := &Error{File: file, Detail: detail}
	switch d := strings.ToLower(detail); {
	case strings.Contains(d, "sops metadata not found"), strings.Contains(
		d,
		"error unmarshalling input yaml",
	), strings.Contains(d, "error unmarshaling input yaml"):
		return NotEncrypted(file)
	case strings.Contains(d, "failed to verify data integrity"), strings.Contains(d, "mac mismatch"), strings.Contains(d, "failed to decrypt original mac"):
		e.Reason = "the file was changed after it was encrypted (its MAC does not match)"
		e.Hint = "restore it from a trusted revision, or re-create it with `sops edit`"
	case strings.Contains(d, "could not decrypt value"), strings.Contains(d, "message authentication failed"):
		e.Reason = "an encrypted value was changed after encryption"
		e.Hint = "restore it from a trusted revision, or re-create it with `sops edit`"
	case strings.Contains(d, "identity did not match"), strings.Contains(d, "incorrect identity"), strings.Contains(d, "no identity matched"):
		e.Reason = reasonOtherRecip + ")"
		e.Hint = "use a key the file is encrypted for (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY, GnuPG or cloud KMS credentials), or re-encrypt it for yours with " +
			"`sops updatekeys`"
	case strings.Contains(d, "failed to load age identities"), strings.Contains(d, "data key"), strings.Contains(d, "successful groups"):
		e.Reason = reasonNoKey
		e.Hint = "provide a key the file is encrypted for: set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY for age, or the GnuPG/KMS credentials its recipients need"
	default:
		e.Reason = "sops could not decrypt it"
		e.Hint = "check it with `sops decrypt " + file + "`"
		e.showDetail = true
		e.Detail = yamlpos.Redact(e.Detail) // quoted content, if any
	}
	return e
}

const (
	reasonNoKey      = "no key is available to decrypt it"
	reasonOtherRecip = "none of the available keys can decrypt it (it is encrypted for other recipients"
)

// recipientNames are the kinds of SOPS master key (sopsfile.Metadata's
// Recipients) in words, with what decrypting for them takes.
var recipientNames = map[string][2]string{
	"age":      {"age", "an age key (SOPS_AGE_KEY_FILE or SOPS_AGE_KEY)"},
	"pgp":      {"GnuPG", "the GnuPG secret key in the keyring (GNUPGHOME)"},
	"kms":      {"AWS KMS", "AWS credentials allowed to use the KMS key"},
	"gcp_kms":  {"Google Cloud KMS", "Google Cloud credentials allowed to use the key"},
	"azure_kv": {"Azure Key Vault", "Azure credentials allowed to use the key"},
	"hc_vault": {"HashiCorp Vault", "a Vault token allowed to use the transit key (VAULT_TOKEN)"},
}

// forRecipients puts a missing key in the words of the file's recipients:
// a file with no age recipient is not helped by an age key, and the hint
// names what each of its recipients takes. (Before, a file encrypted for a
// KMS key alone said "set SOPS_AGE_KEY_FILE", even when it was set.)
func (e *Error) forRecipients(recipients []string, ageKey bool) {
	if e.Reason != reasonNoKey || len(recipients) == 0 || slices.Contains(recipients, "age") {
		return
	}
	var kinds, needs []string
	for _, r := range recipients {
		n, ok := recipientNames[r]
		if !ok {
			n = [2]string{r, "the key for its " + r + " recipient"}
		}
		kinds, needs = append(kinds, n[0]), append(needs, n[1])
	}
	if ageKey {
		e.Reason = reasonOtherRecip + ": " + strings.Join(kinds, ", ") + "; the age key set here is not one of them)"
	} else {
		e.Reason = reasonNoKey + ": it is encrypted for " + strings.Join(kinds, ", ") + " only"
	}
	e.Hint = "provide " + strings.Join(needs, ", or ") + "; or re-encrypt it for your age key with `sops updatekeys`"
}

// NotEncrypted is the error for a file that should be SOPS-encrypted and
// is not.
func NotEncrypted(file string) *Error {
	return &Error{File: file, Reason: "it is not a SOPS-encrypted YAML file",
		Hint: "encrypt it with `sops --encrypt --in-place " + file + "`"}
}

// stripANSI removes terminal colour codes that sops puts in user errors.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < '@' || s[j] > '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
