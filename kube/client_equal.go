package kube

import (
	"bytes"
	"encoding/json"
)

// equalJSON compares two API objects by their serialized form, which is
// what the API server would store: a no-op update is skipped.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
