package lint

import (
	"encoding/json"
	"fmt"
)

// CRDInventoryVersion is the version of CRDInventory's JSON.
const CRDInventoryVersion = 1

// CRDInventory is every CRD the repository's targets render, with the
// target and template of each: what a shard would render of the other
// shards' targets for its inventory. The documents come from the rendering
// with placeholders for secret values (render.Result.RedactedObjects), so
// no decrypted value is ever in it; a CRD whose content depends on a
// secret value is held as rendered with placeholders.
type CRDInventory struct {
	Version int            `json:"version"`
	Layout  string         `json:"layout"`
	CRDs    []InventoryCRD `json:"crds"`
}

// InventoryCRD is one rendered CRD: its target, its template and the
// document.
type InventoryCRD struct {
	Target     string `json:"target"`
	File       string `json:"file,omitempty"`
	Member     string `json:"member,omitempty"`
	Template   string `json:"template,omitempty"`
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
	YAML       string `json:"yaml"`
}

// ParseCRDInventory reads a CRDInventory's JSON.
func ParseCRDInventory(data []byte) (*CRDInventory, error) {
	return decodeVersioned(data, "CRD inventory", CRDInventoryVersion, func(inv *CRDInventory) int { return inv.Version })
}

// decodeVersioned reads the JSON of a file one run of repotool hands
// another (a shard report, a CRD inventory), refusing another version.
func decodeVersioned[T any](data []byte, what string, want int, version func(*T) int) (*T, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not a %s: %w", what, err)
	}
	if got := version(&v); got != want {
		return nil, fmt.Errorf("%s version %d, want %d: make it with the repotool that reads it", what, got, want)
	}
	return &v, nil
}
