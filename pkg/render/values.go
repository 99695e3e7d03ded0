package render

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/layout"
)

// values reads a target's values files in merge order, decrypting secret
// ones in memory, and merges them as helm's --values does (later wins, maps
// merged key by key). It also returns a redactor that knows every decrypted
// value, and the decryption failures that were replaced by placeholders
// (PlaceholdersOnDecryptFailure).
func (r *Renderer) values(ctx context.Context, t *layout.Target, dec Decrypter) (map[string]any, *redactor, []error, error) {
	red := newRedactor()
	var fallbacks []error
	base := map[string]any{}
	for _, vf := range t.Values {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		data, err := r.valuesFile(vf.Path)
		if err != nil {
			return nil, nil, nil, &ValuesError{File: vf.Path, Err: err}
		}
		if vf.Secret {
			plain, err := r.decrypt(ctx, dec, vf.Path, data)
			var de *decrypt.Error
			switch {
			case err == nil:
			case r.placeholdersOnFailure && errors.As(err, &de):
				if plain, err = placeholdersFor(vf.Path, data); err != nil {
					return nil, nil, nil, de
				}
				fallbacks = append(fallbacks, de)
			default:
				return nil, nil, nil, err
			}
			data = plain
		}
		current, err := r.parseValues(data, vf.Secret)
		if err != nil {
			return nil, nil, nil, &ValuesError{File: vf.Path, Err: err}
		}
		if vf.Secret {
			red.add(current)
		}
		base = helmvalues.Merge(base, current)
	}
	if t.App != nil {
		var err error
		if base, err = r.appValues(t.App, base); err != nil {
			return nil, nil, nil, err
		}
	}
	red.seal()
	return base, red, fallbacks, nil
}

// parseValues parses a values file as the Helm rendered as reads it: its
// first YAML document (Helm 3), or all of them merged (Helm 4). A secret
// file's message says only what is wrong, never what the parser quotes;
// repotool does not merge the documents of a secret file (SOPS keeps
// one set of metadata per file), so one with several fails under Helm 4.
func (r *Renderer) parseValues(data []byte, secret bool) (map[string]any, error) {
	if r.helm4() && secret {
		if n, err := helmvalues.Count(data); err != nil || n > 1 {
			return nil, errors.New("the decrypted content is more than one YAML document, which Helm 4 would merge: make it one document")
		}
	}
	current, err := helmvalues.Read(data, r.helm4() && !secret)
	if err != nil && secret {
		return nil, errors.New("the decrypted content is not a YAML mapping")
	}
	return current, err
}

// valuesFile reads a values file of at most Options.MaxValuesSize bytes
// (no limit when it is not positive) from the repository's file index,
// where layout read it already.
func (r *Renderer) valuesFile(p string) ([]byte, error) {
	real, err := fsutil.Resolve(r.fsys, p)
	if err != nil {
		return nil, err
	}
	if max := r.opts.MaxValuesSize; max > 0 {
		if st, err := fs.Stat(r.fsys, real); err == nil && st.Size() > max {
			return nil, fmt.Errorf("the file has %d bytes, more than the limit of %d (--max-values-size)", st.Size(), max)
		}
	}
	return r.files.Get(p).Data()
}

// decrypts reports whether rendering t decrypts secret values for real.
func (r *Renderer) decrypts(t *layout.Target) bool {
	if _, ok := r.decrypter.(PlaceholderDecrypter); ok {
		return false
	}
	return slices.ContainsFunc(t.Values, func(v layout.ValueFile) bool { return v.Secret })
}

// decrypted is a secret values file's decryption, done once: when done is
// closed, ok says whether it succeeded, with plain.
type decrypted struct {
	done  chan struct{}
	ok    bool
	plain []byte
}

// decrypt decrypts a secret values file with dec. Its results (but
// placeholders') are kept for the run, in memory only, by file and
// content: a namespace's common secret values are shared by every
// cluster's target, and decrypting them (key unwrapping, then every
// value) once per target was a tenth of a render. Targets that need a
// file another is decrypting wait for it. Failures are not kept: one may
// be the end of a target's time, not the file's; a waiting target then
// decrypts itself.
func (r *Renderer) decrypt(ctx context.Context, dec Decrypter, p string, data []byte) ([]byte, error) {
	if _, ok := dec.(PlaceholderDecrypter); ok {
		return dec.Decrypt(ctx, p, data)
	}
	sum := sha256.Sum256(data)
	for {
		r.plainMu.Lock()
		d, ok := r.plain[p][sum]
		if !ok {
			if r.plain == nil {
				r.plain = map[string]map[[sha256.Size]byte]*decrypted{}
			}
			if r.plain[p] == nil {
				r.plain[p] = map[[sha256.Size]byte]*decrypted{}
			}
			d = &decrypted{done: make(chan struct{})}
			r.plain[p][sum] = d
		}
		r.plainMu.Unlock()
		if !ok {
			plain, err := dec.Decrypt(ctx, p, data)
			r.plainMu.Lock()
			if err != nil {
				delete(r.plain[p], sum)
			}
			d.plain, d.ok = plain, err == nil
			r.plainMu.Unlock()
			close(d.done)
			return plain, err
		}
		select {
		case <-d.done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if d.ok {
			return d.plain, nil
		}
	}
}
