package wizardbackend

import (
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// CheckSliceRequest is artifact.CheckSliceRequest, the validator `create
// resourceslice` uses too: its refusal is the form's *handshake.FieldError.
func (b *Backend) CheckSliceRequest(req tui.SliceRequest) error {
	return artifact.CheckSliceRequest(artifact.SliceRequest{Name: req.Name, ProviderID: req.ProviderID, Class: req.Class,
		CPU: req.CPU, Memory: req.Memory, Pods: req.Pods})
}
