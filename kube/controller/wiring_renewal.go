package controller

// wireRenewProvider wires the provider's Renew status writer (§10.2).
func (m *Manager) wireRenewProvider(r *wiring, ev *events) error { return nil }

// wireRenewConsumer wires the consumer's renewer (§10.2).
func (m *Manager) wireRenewConsumer(r *wiring, ev *events) error { return nil }

// wireReplication wires the consumer's replicator of ResourceSlices and
// Renews to the providers (§10).
func (m *Manager) wireReplication(r *wiring, ev *events) error { return nil }
