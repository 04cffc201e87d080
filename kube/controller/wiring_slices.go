package controller

// wireSlicesProvider wires the provider's ResourceSlice reconciler (§10.1).
func (m *Manager) wireSlicesProvider(r *wiring, ev *events) error { return nil }

// wireSlicesConsumer wires the consumer's ResourceSlice CSR filler and
// Identity creator (§10.1).
func (m *Manager) wireSlicesConsumer(r *wiring, ev *events) error { return nil }
