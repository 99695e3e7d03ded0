package hydrate

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"reflect"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// sopsWriter encrypts the Secrets of renderings for the SOPS rules of a
// repository, keeping the ciphertext of the previous output where a
// Secret did not change.
type sopsWriter struct {
	config   []byte
	previous fs.FS
	dec      decrypt.Decrypter
}

func newSOPSWriter(repo *layout.Repo, opts Options) (*sopsWriter, error) {
	config, err := repo.Files.Get(layout.SOPSConfigFile).Data()
	if err != nil {
		return nil, fmt.Errorf(
			"--secrets sops encrypts Secrets for the recipients of the repository's %s creation rules, and it cannot be read: %w",
			layout.SOPSConfigFile,
			err,
		)
	}
	return &sopsWriter{config: config, previous: opts.Previous, dec: cmpDecrypter(opts.Decrypter)}, nil
}

func cmpDecrypter(d decrypt.Decrypter) decrypt.Decrypter {
	if d == nil {
		return &decrypt.SOPS{}
	}
	return d
}

// manifest is rr's stream with every Secret replaced by its encrypted
// form, at file (the manifest's path in the output). A Secret whose
// decrypted previous form (in the previous output's file) is the same
// object keeps its previous bytes: encryption is randomised, and
// hydrating an unchanged commit must write an unchanged file.
func (w *sopsWriter) manifest(ctx context.Context, rr *render.Result, file string) ([]byte, error) {
	prev := w.previousSecrets(ctx, file)
	var rule *decrypt.Rule // the manifest's, looked up at its first Secret
	return spliceSecrets(rr, func(o *manifest.Object) ([]byte, error) {
		if p, ok := prev[o.Key()]; ok && reflect.DeepEqual(p.plain, o.Content) {
			return p.cipher, nil
		}
		var err error
		if rule == nil {
			if rule, err = decrypt.CreationRule(w.config, file, decrypt.PolicyOf(w.dec)); err != nil {
				return nil, err
			}
		}
		return decrypt.EncryptSecret(rule, o.YAML)
	})
}

// spliceSecrets is rr's stream with each Secret's document replaced by
// what replace makes of it. Its errors are the target's, naming the
// Secret and its template.
func spliceSecrets(rr *render.Result, replace func(*manifest.Object) ([]byte, error)) ([]byte, error) {
	var out bytes.Buffer
	pos := 0
	for i := range rr.Objects {
		o := &rr.Objects[i]
		if !o.IsSecret() {
			continue
		}
		at := bytes.Index(rr.Manifest[pos:], o.YAML)
		if at < 0 {
			return nil, fmt.Errorf("hydrate %s: the Secret %s is not where the rendering says (a repotool bug)", rr.Target.Name(), objectName(o))
		}
		out.Write(rr.Manifest[pos : pos+at])
		pos += at + len(o.YAML)
		doc, err := replace(o)
		if err != nil {
			return nil, fmt.Errorf("hydrate %s: Secret %s (%s): %w", rr.Target.Name(), objectName(o), sourceOf(o), err)
		}
		out.Write(doc)
	}
	out.Write(rr.Manifest[pos:])
	return out.Bytes(), nil
}

// previousObjects are the objects of the previous output's file, none
// when there is no previous output or the file cannot be read or parsed
// (its Secrets are then encrypted anew).
func previousObjects(prev fs.FS, file string) []manifest.Object {
	if prev == nil {
		return nil
	}
	data, err := fsutil.ReadFile(prev, file, fsutil.DefaultMaxFileSize)
	if err != nil {
		return nil
	}
	objs, err := manifest.Read(data)
	if err != nil {
		return nil
	}
	return objs
}

// previousSecret is a Secret of the previous output: its encrypted
// document and its decrypted content.
type previousSecret struct {
	cipher []byte
	plain  map[string]any
}

// previousSecrets are the Secrets of the previous output's file that the
// decrypter can decrypt, by key. Those it cannot (the output encrypted
// only for the cluster's key) are encrypted anew; see docs/hydrate.md.
func (w *sopsWriter) previousSecrets(ctx context.Context, file string) map[manifest.Key]previousSecret {
	out := map[manifest.Key]previousSecret{}
	for _, o := range previousObjects(w.previous, file) {
		if !o.IsSecret() || o.Content[sopsfile.MetadataKey] == nil {
			continue
		}
		plain, err := w.dec.Decrypt(ctx, file, o.YAML)
		if err != nil {
			continue
		}
		p, err := manifest.Read(plain)
		if err != nil || len(p) != 1 {
			continue
		}
		out[o.Key()] = previousSecret{cipher: o.YAML, plain: p[0].Content}
	}
	return out
}
