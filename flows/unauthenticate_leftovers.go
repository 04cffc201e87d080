package flows

import (
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Tenants and Identities by their full resource name, so that kubectl
// never picks another API group's kind of the same name.
const (
	tenantsResource    = "tenants.authentication.liqo.io"
	identitiesResource = "identities.authentication.liqo.io"
)

// leftovers lists what may remain on the side not reached, by label where
// kubectl can select (the names of a cluster not reached are unknown), in
// the order to remove it. The IDs were checked as DNS labels: safe to
// print in a shell command.
func leftovers(consumerGone, providerGone bool, consumerID, providerID string) []Leftover {
	var out []Leftover
	if providerGone {
		byConsumer := kube.RemoteClusterIDLabel + "=" + consumerID
		out = append(out,
			Leftover{Role: handshake.RoleProvider, What: "the consumer's ClusterRoleBindings and RoleBindings",
				Command: fmt.Sprintf("kubectl delete clusterrolebindings,rolebindings -A -l %s=%s,%s", kube.ManagedByLabel, kube.LiqoManagedByValue, byConsumer)},
			Leftover{Role: handshake.RoleProvider, What: "the consumer's cached certificate",
				Command: fmt.Sprintf("kubectl delete secrets -A -l %s --field-selector metadata.name=%s", byConsumer, kube.RemoteCertSecretName)},
			Leftover{Role: handshake.RoleProvider, What: "the consumer's Tenant",
				Command: fmt.Sprintf("kubectl delete %s -A -l %s --wait=false", tenantsResource, byConsumer)},
			Leftover{Role: handshake.RoleProvider, What: "its finalizer, if the Tenant stays Terminating (no controller runs there)",
				Command: fmt.Sprintf(`kubectl patch %s %s -n %s --type=merge -p '{"metadata":{"finalizers":null}}'`,
					tenantsResource, consumerID, kube.TenantNamespaceName(consumerID))},
			tenantNamespaceLeftover(handshake.RoleProvider, consumerID, "its nonce"),
		)
	}
	if consumerGone {
		byProvider := kube.RemoteClusterIDLabel + "=" + providerID
		// The Secret first: deleting the Identity first, its garbage
		// collection would race the command.
		out = append(out,
			Leftover{Role: handshake.RoleConsumer, What: "the kubeconfig Secret for the provider",
				Command: fmt.Sprintf("kubectl delete secrets -A -l %s,%s", byProvider, kube.IdentityTypeLabel)},
			Leftover{Role: handshake.RoleConsumer, What: "the Identity for the provider",
				Command: fmt.Sprintf("kubectl delete %s -A -l %s", identitiesResource, byProvider)},
			tenantNamespaceLeftover(handshake.RoleConsumer, providerID, "its signed nonce"),
		)
	}
	return out
}

// tenantNamespaceLeftover is the tenant namespace of remoteID on the side
// playing role, removed last: what its Tenant's finalizer needs goes first.
func tenantNamespaceLeftover(role handshake.Role, remoteID, holding string) Leftover {
	return Leftover{Role: role, What: "the tenant namespace of " + remoteID + " (" + holding + ")",
		Command: fmt.Sprintf("kubectl delete namespaces -l %s,%s=%s", kube.TenantNamespaceLabel, kube.RemoteClusterIDLabel, remoteID)}
}
