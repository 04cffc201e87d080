package handshake

// Role is the side a cluster plays in the handshake.
type Role string

const (
	RoleUnknown  Role = ""
	RoleConsumer Role = "consumer"
	RoleProvider Role = "provider"
)

// Other is the opposite role.
func (r Role) Other() Role {
	switch r {
	case RoleConsumer:
		return RoleProvider
	case RoleProvider:
		return RoleConsumer
	}
	return RoleUnknown
}

// Scope says which cluster a step acts on, as liqoctl's (local)/(remote):
// in the automated flow local is the consumer and remote the provider; in
// the manual steps local is the cluster of the one kubeconfig given.
type Scope string

const (
	NoScope Scope = ""
	Local   Scope = "local"
	Remote  Scope = "remote"
)

// Prefix is "(local) " or "(remote) ", and "" without a scope.
func (s Scope) Prefix() string {
	if s == NoScope {
		return ""
	}
	return "(" + string(s) + ") "
}
