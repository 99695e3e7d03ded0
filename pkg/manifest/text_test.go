package manifest_test

import (
	"errors"
	"testing"

	"github.com/repotool/repotool/pkg/manifest"
)

// TestHoldText: an object's text is its YAML until HoldText hands it to a
// loader; then Text loads it on every call, and a loader's failure is
// Text's.
func TestHoldText(t *testing.T) {
	o := manifest.Object{Kind: "ConfigMap", YAML: []byte("kind: ConfigMap\n")}
	if got, err := o.Text(); err != nil || string(got) != "kind: ConfigMap\n" {
		t.Fatalf("Text = %q, %v: want the YAML", got, err)
	}
	loads := 0
	o.HoldText(func() ([]byte, error) { loads++; return []byte("kind: ConfigMap\n"), nil })
	if o.YAML != nil {
		t.Error("HoldText kept the YAML")
	}
	for range 2 {
		if got, err := o.Text(); err != nil || string(got) != "kind: ConfigMap\n" {
			t.Fatalf("Text = %q, %v: want the held text", got, err)
		}
	}
	if loads != 2 {
		t.Errorf("the text was loaded %d times for two calls", loads)
	}
	lost := errors.New("lost")
	o.HoldText(func() ([]byte, error) { return nil, lost })
	if _, err := o.Text(); !errors.Is(err, lost) {
		t.Errorf("Text = %v, want the loader's error", err)
	}
	var plain manifest.Object
	if got, err := plain.Text(); got != nil || err != nil {
		t.Errorf("an object without text: %q, %v", got, err)
	}
}
