package wizardbackend

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// CheckSliceRequest refuses, with the field at fault, what the API server
// or Liqo would refuse in a ResourceSlice (§10.1), as flows does: the name
// is a DNS-1123 subdomain of at most 63 characters (it is also the value
// of the liqo.io/resourceslice-name label of the slice's Identity), the
// class a DNS-1123 subdomain, and the amounts non-negative Kubernetes
// quantities. Here, with the field at fault for the form; and pods a
// whole number.
func (b *Backend) CheckSliceRequest(req tui.SliceRequest) error {
	if len(validation.IsDNS1123Subdomain(req.Name)) > 0 || len(req.Name) > validation.LabelValueMaxLength {
		return &tui.FieldError{Field: tui.FieldSliceName, Reason: fmt.Sprintf("%q is not a valid ResourceSlice name: "+
			"at most 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit", req.Name)}
	}
	if req.Class != "" {
		if len(validation.IsDNS1123Subdomain(req.Class)) > 0 {
			return &tui.FieldError{Field: tui.FieldClass, Reason: fmt.Sprintf("%q is not a valid class: "+
				"lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (empty = default)", req.Class)}
		}
	}
	for _, q := range []struct{ field, value string }{{tui.FieldCPU, req.CPU}, {tui.FieldMemory, req.Memory}, {tui.FieldPods, req.Pods}} {
		if q.value == "" {
			continue
		}
		v, err := artifact.ParseQuantity(q.value)
		switch {
		case err != nil:
			return &tui.FieldError{Field: q.field, Reason: fmt.Sprintf("%s: %q is not a quantity (e.g. %s)", q.field, q.value, quantityExample[q.field])}
		case v.Sign() < 0:
			return &tui.FieldError{Field: q.field, Reason: fmt.Sprintf("%s: %q is negative", q.field, q.value)}
		case q.field == tui.FieldPods && v.MilliValue()%1000 != 0:
			return &tui.FieldError{Field: q.field, Reason: fmt.Sprintf("pods: %q is not a whole number", q.value)}
		}
	}
	return nil
}

var quantityExample = map[string]string{tui.FieldCPU: "4 or 500m", tui.FieldMemory: "8Gi or 512Mi", tui.FieldPods: "110"}
