package wizardbackend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/liqo-auth-tui/wizardbackend"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// FuzzCheckSliceRequest: the wizard's ResourceSlice form. No input panics;
// a refusal names one of the form's fields in one line; and what the form
// accepts, artifact.CheckSliceRequest (hence the API server and Liqo)
// accepts too, so that a request never fails after the form said it was
// fine.
func FuzzCheckSliceRequest(f *testing.F) {
	f.Add("slice-1", "", "4", "8Gi", "110")
	f.Add("slice-1", "default", "500m", "", "")
	f.Add("Slice", "gold", "-1", "1e3", "1.5")
	f.Add("a.b", "gold.example", "0.1", "1Ei", "9223372036854775807")
	f.Add(strings.Repeat("a", 64), "", "1Ki", "+3", "1E18")
	f.Add("slice-1", "x-", "1Pi", "12e-3", "0x10")
	b := wizardbackend.New(0, flows.EngineOptions{})
	fields := map[string]bool{tui.FieldSliceName: true, tui.FieldClass: true, tui.FieldCPU: true, tui.FieldMemory: true, tui.FieldPods: true}
	f.Fuzz(func(t *testing.T, name, class, cpu, memory, pods string) {
		req := tui.SliceRequest{Name: name, ProviderID: "provider-cluster", Class: class, CPU: cpu, Memory: memory, Pods: pods}
		err := b.CheckSliceRequest(req)
		if err != nil {
			var fe *tui.FieldError
			if !errors.As(err, &fe) || !fields[fe.Field] {
				t.Fatalf("refusal without a field of the form: %v", err)
			}
			if strings.ContainsAny(fe.Reason, "\r\n") {
				t.Fatalf("refusal spans lines: %q", fe.Reason)
			}
			return
		}
		if err := artifact.CheckSliceRequest(artifact.SliceRequest{Name: name, ProviderID: req.ProviderID, Class: class,
			CPU: cpu, Memory: memory, Pods: pods}); err != nil {
			t.Fatalf("the form accepts what the command refuses: %v", err)
		}
	})
}
