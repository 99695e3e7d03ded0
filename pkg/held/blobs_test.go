package held_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/repotool/repotool/pkg/held"
)

// TestBlobs: blobs come back byte for byte, in memory and on disk, their
// pieces put together in order, an empty blob empty.
func TestBlobs(t *testing.T) {
	disk, err := held.NewBlobsOnDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*held.Blobs{"memory": held.NewBlobs(), "disk": disk} {
		t.Run(name, func(t *testing.T) {
			defer b.Close()
			in := [][][]byte{
				{[]byte("---\na: 1\n"), []byte("---\nb: 2\n")},
				{[]byte("---\na: 1\n")},
				nil,
				{[]byte("# x\n")},
			}
			var got []held.Blob
			for _, pieces := range in {
				x, err := b.Put(slices.Values(pieces))
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, x)
			}
			for i, x := range got {
				data, err := b.Append([]byte("prefix:"), x)
				if want := append([]byte("prefix:"), bytes.Join(in[i], nil)...); err != nil || !bytes.Equal(data, want) {
					t.Errorf("blob %d: %q, %v; want %q", i, data, err, want)
				}
			}
		})
	}
}

// ExampleOutput holds what a command prints until every part is ready,
// then writes it all, in order.
func ExampleOutput() {
	out := held.NewOutput()
	defer out.Close()
	for _, part := range []string{"---\nkind: A\n", "---\nkind: B\n", "---\nkind: A\n"} {
		if err := out.Add([]byte(part)); err != nil {
			panic(err)
		}
	}
	if _, err := out.WriteTo(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// ---
	// kind: A
	// ---
	// kind: B
	// ---
	// kind: A
}
