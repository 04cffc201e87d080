package handshake

// The fields of a ResourceSlice request, as a FieldError names them: the
// commands' flags and the wizard's form are checked by one validator
// (flows/artifact), whose refusal the form shows beside the field.
const (
	FieldSliceName = "name"
	FieldProvider  = "provider"
	FieldClass     = "class"
	FieldCPU       = "cpu"
	FieldMemory    = "memory"
	FieldPods      = "pods"
)

// FieldError is a value a request may not carry: which field, and why in
// one line.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Reason }
