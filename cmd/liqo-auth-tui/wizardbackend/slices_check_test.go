package wizardbackend

import (
	"errors"
	"strings"
	"testing"

	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// CheckSliceRequest names the field at fault, with apimachinery's own
// rules for names and quantities.
func TestCheckSliceRequest(t *testing.T) {
	valid := tui.SliceRequest{Name: "provider-1", ProviderID: "provider-1", Class: "default", CPU: "500m", Memory: "8Gi", Pods: "110"}
	b := &Backend{}
	if err := b.CheckSliceRequest(valid); err != nil {
		t.Fatalf("valid request refused: %v", err)
	}
	if err := b.CheckSliceRequest(tui.SliceRequest{Name: "pool.eu-1"}); err != nil {
		t.Fatalf("a request leaving the amounts to the provider refused: %v", err)
	}
	for _, c := range []struct {
		name       string
		edit       func(*tui.SliceRequest)
		field, msg string
	}{
		{"empty name", func(r *tui.SliceRequest) { r.Name = "" }, tui.FieldSliceName, `"" is not a valid ResourceSlice name`},
		{"upper case", func(r *tui.SliceRequest) { r.Name = "Pool" }, tui.FieldSliceName, `"Pool" is not a valid ResourceSlice name: at most 63 lowercase`},
		{"longer than a label", func(r *tui.SliceRequest) { r.Name = strings.Repeat("a", 64) }, tui.FieldSliceName, "is not a valid ResourceSlice name"},
		{"class", func(r *tui.SliceRequest) { r.Class = "my class" }, tui.FieldClass, `"my class" is not a valid class`},
		{"cpu", func(r *tui.SliceRequest) { r.CPU = "lots" }, tui.FieldCPU, `cpu: "lots" is not a quantity (e.g. 4 or 500m)`},
		{"negative memory", func(r *tui.SliceRequest) { r.Memory = "-1Gi" }, tui.FieldMemory, `memory: "-1Gi" is negative`},
		{"half a pod", func(r *tui.SliceRequest) { r.Pods = "1500m" }, tui.FieldPods, `pods: "1500m" is not a whole number`},
	} {
		req := valid
		c.edit(&req)
		err := b.CheckSliceRequest(req)
		var fe *tui.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Reason, c.msg) {
			t.Errorf("%s: %v, want field %s with %q", c.name, err, c.field, c.msg)
		}
	}
}
