package handshake

// The sentences about Liqo 0.x that several screens and commands print:
// each is written once, here, so that they never drift apart.
const (
	// Liqo02Unsupported ends the line about a cluster on Liqo v0.2.
	Liqo02Unsupported = "ServiceAccount-token identities, which this tool does not support: upgrade it to Liqo v0.3.0 or later (v0.10.3 is the last 0.x)"
	// Liqo03And04Incompatible is the advice for a v0.3 and a v0.4+ cluster.
	Liqo03And04Incompatible = "Liqo v0.3 and v0.4+ send identity requests in different formats and cannot authenticate each other: " +
		"upgrade the v0.3 cluster to Liqo v0.4.0 or later (v0.10.3 is the last 0.x)"
)

// AuthenticationDisabledWarning is the loud line about a Liqo 0.x provider
// whose auth server accepts any token; authURL names that server ("" when
// not known).
func AuthenticationDisabledWarning(authURL string) string {
	server := "its auth server"
	if authURL != "" {
		server = authURL
	}
	return "authentication is DISABLED on this Liqo 0.x provider (liqo-auth --enable-authentication=false): anyone who reaches " + server +
		" can peer with it; enable it (Helm value auth.config.enableAuthentication=true) unless that is intended"
}
