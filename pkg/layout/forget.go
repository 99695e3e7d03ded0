package layout

import (
	"maps"
	"sort"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// Forget lets go of the entries of the files that hold nothing (their
// bytes and documents let go, or never read) and learnt nothing a stage
// could not learn again by reading them, but their SOPS metadata: no read
// error, no parse error past that metadata. What a file read and parsed
// learnt when it learnt nothing (most files) stays as one mark, a bit
// over the repository's listing once Paths made it (pathset.Marks), where an
// entry takes some 150 bytes; a file read and parsed clean that holds
// SOPS metadata, as that metadata (shared by the files encrypted alike)
// in a table by path (sealed): a stage that asks again for such a file
// gets a new entry, which knows its facts (Sops, Err) and reads its
// content when asked, as after the budget let it go. A file known to hold
// no SOPS metadata otherwise (its parse failed, or its bytes cannot spell
// it) stays as a mark in a second set: asked again, it tells so without
// being read, and is parsed again for its error (Err) or its documents.
// A run that reads every file of the repository (lint's scans) calls it
// as it goes, so that it keeps the files in use, not an entry for each,
// and Load once it has checked the values files.
func (f *Files) Forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	var clean, failed []string
	gone := 0
	for p, x := range f.entries {
		if !x.mu.TryLock() {
			continue // in use
		}
		l := x.facts()
		idle := x.data.Load() == nil && x.docs.Load() == nil && l.readErr == nil
		parsedClean := x.read && x.parsed && l.parseErr == nil
		x.mu.Unlock()
		if !idle || l.sops != nil && !parsedClean {
			continue
		}
		switch {
		case l.sops != nil:
			if f.sealed == nil {
				f.sealed = map[string]*sopsfile.Metadata{}
			}
			f.sealed[p] = l.sops
		case parsedClean:
			clean = append(clean, p)
		case x.noSops.Load() || x.read && x.parsed:
			failed = append(failed, p) // no SOPS metadata (idle), known without a clean parse
		}
		delete(f.entries, p)
		gone++
	}
	if gone > len(f.entries) { // a map does not shrink as its entries go
		f.entries = maps.Collect(maps.All(f.entries))
	}
	if len(clean) > 0 {
		sort.Strings(clean)
		f.forgot.Add(f.listed(), clean)
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		f.sopsless.Add(f.listed(), failed)
	}
}
