package wizardbackend

import (
	"errors"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// CheckSliceRequest is artifact.CheckSliceRequest, the validator `create
// resourceslice` uses too, with its refusal as the form's FieldError.
func (b *Backend) CheckSliceRequest(req tui.SliceRequest) error {
	err := artifact.CheckSliceRequest(artifact.SliceRequest{Name: req.Name, ProviderID: req.ProviderID, Class: req.Class,
		CPU: req.CPU, Memory: req.Memory, Pods: req.Pods})
	var fe *artifact.FieldError
	if errors.As(err, &fe) {
		return &tui.FieldError{Field: fe.Field, Reason: fe.Reason}
	}
	return err
}
