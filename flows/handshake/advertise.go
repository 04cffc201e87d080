package handshake

// AdvertiseSourceText says, for people, where the API server address a
// consumer gets comes from; source is flows.AdvertiseSource's value. The
// wizard's advertise screen and the peering user's report both print it.
func AdvertiseSourceText(source string) string {
	if text, ok := map[string]string{
		"override":   "set for this consumer",
		"node":       "a control-plane node's address, as Liqo advertises it",
		"kubeconfig": "the server of this provider's kubeconfig",
		"controller": "the flags of the controller serving the provider",
	}[source]; ok {
		return text
	}
	return source
}
