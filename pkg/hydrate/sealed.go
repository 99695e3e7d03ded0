package hydrate

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"slices"
	"time"

	ssv1 "github.com/bitnami-labs/sealed-secrets/pkg/apis/sealedsecrets/v1alpha1"
	sscrypto "github.com/bitnami-labs/sealed-secrets/pkg/crypto"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// DigestAnnotation, on a SealedSecret hydrate writes, is a digest of the
// Secret it seals, keyed with a key derived from the SOPS data keys of the
// target's secret values files (decrypt.DigestKeyer): hydrating again
// keeps the SealedSecret whose digest is the new Secret's, since sealing
// is randomised. Without the SOPS keys nobody can compute or test it.
const DigestAnnotation = "repotool.dev/sealed-digest"

// maxCertificateSize bounds a certificate file: one is a few KiB.
const maxCertificateSize = 1 << 20

// sealer seals the Secrets of renderings for their clusters'
// certificates, keeping the SealedSecrets of the previous output whose
// digest is unchanged. Its methods are called from one goroutine at a
// time (RenderEachByChart's callback).
type sealer struct {
	repo     *layout.Repo
	previous fs.FS
	keyer    decrypt.DigestKeyer // nil: no digests, every Secret sealed anew
	certs    map[string]certificate
	fileKeys map[string][]byte // by path, for the files of this commit
	codecs   serializer.CodecFactory
	// allowExpired seals with a certificate outside its validity period.
	allowExpired bool
}

// certificate is a cluster's sealing key, or why it has none.
type certificate struct {
	key         *rsa.PublicKey
	fingerprint string
	err         error
}

func newSealer(repo *layout.Repo, opts Options) *sealer {
	s := &sealer{repo: repo, previous: opts.Previous, certs: map[string]certificate{}, fileKeys: map[string][]byte{},
		codecs: serializer.NewCodecFactory(runtime.NewScheme()), allowExpired: opts.AllowExpiredCertificate}
	s.keyer, _ = cmpDecrypter(opts.Decrypter).(decrypt.DigestKeyer)
	return s
}

// certificate reads and parses cluster's certificate, once.
func (s *sealer) certificate(cluster string) certificate {
	if c, ok := s.certs[cluster]; ok {
		return c
	}
	files := s.repo.SecretsInputs(cluster, SecretsSealed)
	if len(files) == 0 {
		c := certificate{err: fmt.Errorf("--secrets sealed-secrets seals for the cluster's sealed-secrets certificate, and cluster %s has no folder "+
			"to hold it (layout.targets names {namespace} before {cluster}): name its file in hydrate.clusters.%s.certificate", cluster, cluster)}
		s.certs[cluster] = c
		return c
	}
	file := files[0]
	c := parseCertificate(s.repo.FS, file, time.Now(), s.allowExpired)
	if c.err != nil {
		c.err = fmt.Errorf("--secrets sealed-secrets seals for the cluster's sealed-secrets certificate, %s: %w; "+
			"fetch it with `kubeseal --fetch-cert > %s` (it is public: commit it), or name its file in hydrate.clusters.%s.certificate",
			file, c.err, file, cluster)
	}
	s.certs[cluster] = c
	return c
}

// parseCertificate reads the RSA public key of the PEM certificate at
// file, as kubeseal reads the controller's certificate, and, as kubeseal
// does, refuses one that is not valid at now (expired, or not yet valid)
// unless allowExpired: the controller renews its key, and a Secret sealed
// for an old one may no longer be unsealed where it deploys.
func parseCertificate(fsys fs.FS, file string, now time.Time, allowExpired bool) certificate {
	data, err := fsutil.ReadFile(fsys, file, maxCertificateSize)
	if err != nil {
		return certificate{err: err}
	}
	block, rest := pem.Decode(data)
	for block != nil && block.Type != "CERTIFICATE" {
		block, rest = pem.Decode(rest)
	}
	if block == nil {
		return certificate{err: errors.New("it holds no PEM certificate (-----BEGIN CERTIFICATE-----)")}
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return certificate{err: fmt.Errorf("its certificate does not parse: %w", err)}
	}
	if !allowExpired && (now.Before(cert.NotBefore) || now.After(cert.NotAfter)) {
		return certificate{err: fmt.Errorf("its certificate is valid from %s to %s, not now (%s): fetch the controller's current one, or, "+
			"if you mean it, pass --allow-expired-certificate", cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339),
			now.UTC().Format(time.RFC3339))}
	}
	key, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return certificate{err: errors.New("its certificate's key is not an RSA key, which sealed-secrets requires")}
	}
	fp, err := sscrypto.PublicKeyFingerprint(key)
	if err != nil {
		return certificate{err: err}
	}
	return certificate{key: key, fingerprint: fp}
}

// digestKey is the key of rr's digests: derived from the digest keys of
// the target's secret values files, else of its cluster's (every target's
// of the cluster, so that a Secret of a target without secret values is
// stable too); nil when there are none or the decrypter derives none.
func (s *sealer) digestKey(ctx context.Context, t layout.Target) ([]byte, error) {
	if s.keyer == nil {
		return nil, nil
	}
	files := secretFiles(t)
	if len(files) == 0 {
		for _, o := range s.repo.TargetsOf(t.Cluster) {
			files = append(files, secretFiles(o)...)
		}
		slices.Sort(files)
		files = slices.Compact(files)
	}
	if len(files) == 0 {
		return nil, nil
	}
	mac := hmac.New(sha256.New, []byte(DigestAnnotation))
	for _, p := range files {
		k, ok := s.fileKeys[p]
		if !ok {
			data, err := s.repo.Files.Get(p).Data()
			if err != nil {
				return nil, err
			}
			if k, err = s.keyer.DigestKey(ctx, p, data); err != nil {
				return nil, fmt.Errorf("the key of the SealedSecrets' digests comes from the SOPS keys of %s: %w", p, err)
			}
			s.fileKeys[p] = k
		}
		fmt.Fprintf(mac, "%d:%s", len(p), p)
		mac.Write(k)
	}
	return mac.Sum(nil), nil
}

func secretFiles(t layout.Target) []string {
	var out []string
	for _, v := range t.Values {
		if v.Secret {
			out = append(out, v.Path)
		}
	}
	return out
}

// manifest is rr's stream with every Secret replaced by its SealedSecret.
// The certificate and the digest key are needed from the first Secret on:
// a target without Secrets needs neither.
func (s *sealer) manifest(ctx context.Context, rr *render.Result, file string) ([]byte, error) {
	var (
		cert certificate
		key  []byte
		prev map[manifest.Key]sealedDoc
	)
	return spliceSecrets(rr, func(o *manifest.Object) ([]byte, error) {
		if prev == nil {
			if cert = s.certificate(rr.Target.Cluster); cert.err != nil {
				return nil, cert.err
			}
			var err error
			if key, err = s.digestKey(ctx, rr.Target); err != nil {
				return nil, err
			}
			prev = previousSealed(s.previous, file)
		}
		secret, err := toSecret(o, rr.Target.Namespace)
		if err != nil {
			return nil, err
		}
		digest := ""
		if key != nil {
			canon, err := json.Marshal(secret)
			if err != nil {
				return nil, errors.New("the Secret does not convert to JSON")
			}
			mac := hmac.New(sha256.New, key)
			fmt.Fprintf(mac, "%s\x00", cert.fingerprint)
			mac.Write(canon)
			digest = "v1:" + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
			if p, ok := prev[manifest.Key{Group: ssv1.GroupName, Kind: "SealedSecret", Namespace: secret.Namespace, Name: secret.Name}]; ok && p.digest == digest {
				return p.yaml, nil
			}
		}
		return s.seal(secret, cert.key, digest)
	})
}

// toSecret is o as a core/v1 Secret, in namespace when it names none (as
// Argo CD applies it), refused when it asks for a wider scope than strict.
func toSecret(o *manifest.Object, namespace string) (*corev1.Secret, error) {
	data, err := json.Marshal(o.Content)
	if err != nil {
		return nil, errors.New("the Secret does not convert to JSON")
	}
	var secret corev1.Secret
	if err := json.Unmarshal(data, &secret); err != nil {
		return nil, errors.New("the Secret is not a valid core/v1 Secret (is every value of its data base64?)")
	}
	if secret.Namespace == "" {
		secret.Namespace = namespace
	}
	for _, a := range []string{ssv1.SealedSecretClusterWideAnnotation, ssv1.SealedSecretNamespaceWideAnnotation} {
		if secret.Annotations[a] == "true" {
			return nil, fmt.Errorf("the Secret asks for a wider scope than strict (annotation %s), and hydrate seals with strict scope only, bound to the "+
				"Secret's name and namespace: remove the annotation", a)
		}
	}
	return &secret, nil
}

// seal is secret's SealedSecret for key, as YAML, with digest in
// DigestAnnotation when there is one.
func (s *sealer) seal(secret *corev1.Secret, key *rsa.PublicKey, digest string) ([]byte, error) {
	ss, err := ssv1.NewSealedSecret(s.codecs, key, secret)
	if err != nil {
		return nil, fmt.Errorf("cannot seal the Secret: %w", err)
	}
	ss.APIVersion, ss.Kind = ssv1.SchemeGroupVersion.String(), "SealedSecret"
	if digest != "" {
		if ss.Annotations == nil {
			ss.Annotations = map[string]string{}
		}
		ss.Annotations[DigestAnnotation] = digest
	}
	data, err := json.Marshal(ss)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	// kubeseal writes "creationTimestamp: null" twice: noise.
	dropNull(m, "metadata", "creationTimestamp")
	dropNull(m, "spec", "template", "metadata", "creationTimestamp")
	return yaml.Marshal(m)
}

func dropNull(m map[string]any, at ...string) {
	for _, k := range at[:len(at)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	if v, ok := m[at[len(at)-1]]; ok && v == nil {
		delete(m, at[len(at)-1])
	}
}

// sealedDoc is a SealedSecret of the previous output.
type sealedDoc struct {
	yaml   []byte
	digest string
}

// previousSealed are the SealedSecrets of the previous output's file that
// carry a digest, by key.
func previousSealed(prev fs.FS, file string) map[manifest.Key]sealedDoc {
	out := map[manifest.Key]sealedDoc{}
	for _, o := range previousObjects(prev, file) {
		if o.Kind != "SealedSecret" {
			continue
		}
		if d := annotation(o.Content, DigestAnnotation); d != "" {
			out[o.Key()] = sealedDoc{yaml: bytes.Clone(o.YAML), digest: d}
		}
	}
	return out
}

func annotation(content map[string]any, name string) string {
	md, _ := content["metadata"].(map[string]any)
	a, _ := md["annotations"].(map[string]any)
	v, _ := a[name].(string)
	return v
}

// sameSealed reports whether prev holds data at p, SealedSecrets compared
// by their readable part: every document alike, but a SealedSecret's
// encrypted values and digest. plan asks it only of a file whose bytes
// differ from prev's (Result.unchanged compares those first).
func sameSealed(prev fs.FS, p string, data []byte) bool {
	if path.Base(p) != ManifestFile {
		return false
	}
	old, err := fsutil.ReadFile(prev, p, fsutil.DefaultMaxFileSize)
	if err != nil {
		return false
	}
	a, errA := manifest.Read(old)
	b, errB := manifest.Read(data)
	if errA != nil || errB != nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Template != b[i].Template {
			return false
		}
		if a[i].Kind == "SealedSecret" && b[i].Kind == "SealedSecret" {
			if !reflect.DeepEqual(readable(a[i].Content), readable(b[i].Content)) {
				return false
			}
		} else if !bytes.Equal(a[i].YAML, b[i].YAML) {
			return false
		}
	}
	return true
}

// readable is a SealedSecret's content without what sealing randomises:
// its encrypted values (their keys kept) and the digest annotation.
func readable(content map[string]any) map[string]any {
	c := maps.Clone(content)
	if md, ok := c["metadata"].(map[string]any); ok {
		md = maps.Clone(md)
		if a, ok := md["annotations"].(map[string]any); ok {
			a = maps.Clone(a)
			delete(a, DigestAnnotation)
			md["annotations"] = a
		}
		c["metadata"] = md
	}
	if spec, ok := c["spec"].(map[string]any); ok {
		spec = maps.Clone(spec)
		if enc, ok := spec["encryptedData"].(map[string]any); ok {
			keys := map[string]any{}
			for k := range enc {
				keys[k] = true
			}
			spec["encryptedData"] = keys
		}
		c["spec"] = spec
	}
	return c
}
