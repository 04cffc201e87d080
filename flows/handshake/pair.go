package handshake

// SameClusterProblem refuses a pair whose two kubeconfigs point at the one
// cluster id: the automated flow says it, and the wizard's detect screen
// before it.
func SameClusterProblem(id string) string {
	return "both kubeconfigs point at cluster " + id + ": give the consumer and the provider"
}
