package layout

import (
	"os"
	"reflect"
	"testing"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// TestFilesShareSOPSMetadata: files encrypted alike share one Metadata,
// each equal to what sopsfile.Inspect reads from the file alone; files
// encrypted otherwise keep their own.
func TestFilesShareSOPSMetadata(t *testing.T) {
	fsys := os.DirFS("../../testdata")
	files := NewFiles(fsys)
	paths := []string{
		"monorepo/namespaces/namespace-a/common-values-a.secret.yaml",
		"monorepo/clusters/prod-cluster/namespace-a/prod-values-a.secret.yaml",
		"monorepo/clusters/prod-cluster/namespace-b/prod-values-b.secret.yaml",
		"lint/sops-key-not-allowed/repo/clusters/c1/app/c1-values.secret.yaml",
	}
	got := map[*sopsfile.Metadata][]string{}
	for _, p := range paths {
		md := files.Get(p).Sops()
		data, err := files.Get(p).Data()
		if err != nil {
			t.Fatal(err)
		}
		want, err := sopsfile.Inspect(data)
		if err != nil || md == nil || !reflect.DeepEqual(*md, *want) {
			t.Fatalf("%s: held %+v, read alone %+v (%v)", p, md, want, err)
		}
		got[md] = append(got[md], p)
	}
	if len(got) != 2 {
		t.Fatalf("want the monorepo's three files sharing one Metadata and the other file its own, got %v", got)
	}
	for _, ps := range got {
		if len(ps) != 1 && len(ps) != 3 {
			t.Fatalf("shared wrongly: %v", got)
		}
	}
	if files.Get("monorepo/namespaces/namespace-a/common-values-a.yaml").Sops() != nil {
		t.Fatal("a plain values file has SOPS metadata")
	}
}

// TestMetadataKey: two Metadata have one key exactly when they are equal,
// however their strings would run together.
func TestMetadataKey(t *testing.T) {
	base := sopsfile.Metadata{Version: "3.9.0", HasMAC: true, Recipients: []string{"age"},
		Keys: []sopsfile.Key{{Kind: "age", ID: "age1x"}}}
	variants := []sopsfile.Metadata{
		base,
		{Version: "3.9.0", Recipients: []string{"age"}, Keys: base.Keys},
		{Version: "3.9.", EncryptedRegex: "0", HasMAC: true, Recipients: []string{"age"}, Keys: base.Keys},
		{Version: "3.9.0", HasMAC: true, Recipients: []string{"age", "age"}, Keys: []sopsfile.Key{{Kind: "age1x"}}},
		{Version: "3.9.0", HasMAC: true, Recipients: []string{"age"}, Keys: []sopsfile.Key{{Kind: "age", ID: "age1y"}}},
		{Version: "3.9.0", HasMAC: true, Keys: []sopsfile.Key{{Kind: "age", ID: "age1x"}}},
		{Version: "3.9.0", HasMAC: true, Recipients: []string{"age"}, UnencryptedSuffix: "_x", Keys: base.Keys},
	}
	seen := map[string]int{}
	for i := range variants {
		k := metadataKey(&variants[i])
		if j, ok := seen[k]; ok {
			t.Fatalf("variants %d and %d share key %s", j, i, k)
		}
		seen[k] = i
	}
	same := base
	same.Keys = []sopsfile.Key{{Kind: "age", ID: "age1x"}}
	if metadataKey(&same) != metadataKey(&base) {
		t.Fatal("equal Metadata have different keys")
	}
	var set metadataSet
	if set.one(nil) != nil || set.one(&base) != &base || set.one(&same) != &base {
		t.Fatal("metadataSet does not return the one held")
	}
}
