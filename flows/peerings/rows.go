package peerings

import (
	"cmp"
	"crypto/x509"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// PeerObjects are the objects of one cluster about one remote.
type PeerObjects struct {
	// v1 and 0.x tenant namespaces.
	Namespace, Liqo0xNamespace *corev1.Namespace
	// Provider side, v1: the nonce, the Tenant, the certificate cache, the
	// consumer's replicated slices and Renew.
	Nonce, CertCache *corev1.Secret
	Tenant           *authv1beta1.Tenant
	ReplicatedSlices []*authv1beta1.ResourceSlice
	ReplicatedRenew  *authv1beta1.Renew
	// Consumer side, v1: the signed nonce, the Identity, its kubeconfig,
	// the local slices and Renew.
	SignedNonce, Kubeconfig *corev1.Secret
	Identity                *authv1beta1.Identity
	LocalSlices             []*authv1beta1.ResourceSlice
	LocalRenew              *authv1beta1.Renew
	// Liqo 0.x: consumer (ForeignCluster, Liqo's identities, this tool's
	// kubeconfig) and provider (the certificate it issued).
	ForeignCluster   *unstructured.Unstructured
	Liqo0xIdentities []*corev1.Secret
	Liqo0xKubeconfig *corev1.Secret
	IssuedCert       *corev1.Secret
}

// GroupByRemote sorts a cluster's objects by the remote they are about.
func GroupByRemote(o *Objects) map[string]*PeerObjects {
	peers := map[string]*PeerObjects{}
	of := func(id string) *PeerObjects {
		p := peers[id]
		if p == nil {
			p = &PeerObjects{}
			peers[id] = p
		}
		return p
	}
	for _, ns := range o.Namespaces {
		if id := ns.Labels[kube.RemoteClusterIDLabel]; id != "" {
			if _, ok := ns.Labels[kube.TenantNamespaceLabel]; ok {
				FirstOf(&of(id).Namespace, ns)
			}
		}
		if id := ns.Labels[liqo0x.ClusterIDLabel]; id != "" && ns.Labels[liqo0x.TenantNamespaceLabel] == "true" {
			FirstOf(&of(id).Liqo0xNamespace, ns)
		}
	}
	for _, s := range o.Secrets {
		id, p := s.Labels[kube.RemoteClusterIDLabel], (*PeerObjects)(nil)
		if id == "" {
			continue
		}
		p = of(id)
		switch {
		case s.Labels[kube.NonceLabel] == "true":
			FirstOf(&p.Nonce, s)
		case s.Labels[kube.SignedNonceLabel] == "true":
			FirstOf(&p.SignedNonce, s)
		case liqo0x.IsClientSecret(s):
			if len(s.Data[kube.KubeconfigField]) > 0 {
				FirstOf(&p.Liqo0xKubeconfig, s)
			}
		case s.Labels[kube.IdentityTypeLabel] == string(authv1beta1.ControlPlaneIdentityType):
			FirstOf(&p.Kubeconfig, s)
		case s.Name == kube.RemoteCertSecretName:
			FirstOf(&p.CertCache, s)
		}
	}
	for _, s := range o.Liqo0xSecrets {
		id := s.Labels[liqo0x.ClusterIDLabel]
		switch {
		case id == "":
		case liqo0x.IsIdentitySecret(s):
			of(id).Liqo0xIdentities = append(of(id).Liqo0xIdentities, s)
		case liqo0x.IsIssuedCertificateSecret(s):
			FirstOf(&of(id).IssuedCert, s)
		}
	}
	for _, t := range o.Tenants {
		if id := cmp.Or(t.Labels[kube.RemoteClusterIDLabel], t.Spec.ClusterID); id != "" {
			FirstOf(&of(id).Tenant, t)
		}
	}
	for _, id := range o.Identities {
		if id.Spec.Type == authv1beta1.ControlPlaneIdentityType && id.Spec.ClusterID != "" {
			FirstOf(&of(id.Spec.ClusterID).Identity, id)
		}
	}
	for _, rs := range o.Slices {
		if kube.IsReplicatedSlice(rs) {
			if id := cmp.Or(rs.Labels[kube.OriginIDLabel], rs.Labels[kube.RemoteClusterIDLabel]); id != "" {
				of(id).ReplicatedSlices = append(of(id).ReplicatedSlices, rs)
			}
		} else if id := cmp.Or(rs.Labels[kube.RemoteClusterIDLabel], rs.Spec.ProviderClusterID); id != "" {
			of(id).LocalSlices = append(of(id).LocalSlices, rs)
		}
	}
	for _, r := range o.Renews {
		if r.Spec.IdentityType != authv1beta1.ControlPlaneIdentityType {
			continue
		}
		if kube.IsReplicatedSlice(r) { // the same label marks a replicated Renew
			if id := r.Labels[kube.OriginIDLabel]; id != "" {
				FirstOf(&of(id).ReplicatedRenew, r)
			}
		} else if id := cmp.Or(r.Labels[kube.RemoteClusterIDLabel], r.Labels[kube.RemoteIDLabel]); id != "" {
			FirstOf(&of(id).LocalRenew, r)
		}
	}
	for _, fc := range o.ForeignClusters {
		if id := liqo0x.ForeignClusterID(fc); id != "" {
			FirstOf(&of(id).ForeignCluster, fc)
		}
	}
	return peers
}

// FirstOf keeps the first object seen (Liqo refuses to pick among
// duplicates; the overview and doctor show one).
func FirstOf[T any](slot **T, v *T) {
	if *slot == nil {
		*slot = v
	}
}

// clusterRows builds the rows of one cluster's objects, sorted by remote ID
// then role.
func clusterRows(o *Objects) []handshake.Peering {
	identities := map[string]*authv1beta1.Identity{}
	for _, id := range o.Identities {
		identities[id.Namespace+"/"+id.Name] = id
	}
	madeBy := handshake.MadeByTool
	if o.Release.Flavor == kube.FlavorV1 || o.Release.Flavor == kube.FlavorLiqo0x {
		madeBy = handshake.MadeByLiqo
	}
	var rows []handshake.Peering
	for id, p := range GroupByRemote(o) {
		n := len(rows)
		if p.Nonce != nil || p.Tenant != nil || p.CertCache != nil || len(p.ReplicatedSlices) > 0 || p.ReplicatedRenew != nil {
			rows = append(rows, providerRow(id, p, madeBy))
		}
		if p.SignedNonce != nil || p.Identity != nil || p.Kubeconfig != nil || len(p.LocalSlices) > 0 || p.LocalRenew != nil {
			rows = append(rows, consumerRow(id, p, madeBy, identities))
		}
		if p.ForeignCluster != nil || len(p.Liqo0xIdentities) > 0 || p.Liqo0xKubeconfig != nil {
			rows = append(rows, liqo0xConsumerRow(id, p))
		}
		if p.IssuedCert != nil {
			rows = append(rows, liqo0xProviderRow(id, p))
		}
		if len(rows) == n && (p.Namespace != nil || p.Liqo0xNamespace != nil) {
			rows = append(rows, namespaceOnlyRow(id, p, madeBy))
		}
	}
	sortRows(rows)
	return rows
}

func sortRows(rows []handshake.Peering) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].RemoteID != rows[j].RemoteID {
			return rows[i].RemoteID < rows[j].RemoteID
		}
		if rows[i].Role != rows[j].Role {
			return rows[i].Role < rows[j].Role
		}
		return rows[i].Generation > rows[j].Generation // v1 before 0.x
	})
}

func providerRow(id string, p *PeerObjects, madeBy string) handshake.Peering {
	r := handshake.Peering{RemoteID: id, Role: handshake.RoleProvider, Generation: handshake.GenerationV1, MadeBy: madeBy,
		Stage: ProviderStageOf(p.Namespace != nil, p.Tenant, p.Nonce), TenantNamespace: namespaceName(p.Namespace)}
	if t := p.Tenant; t != nil {
		r.Tenant = stateOf(t.DeletionTimestamp != nil, TenantAccepted(t))
		r.TenantCondition = string(orDefaultCondition(t.Spec.TenantCondition))
		if t.Status.AuthParams != nil {
			SetCertificate(&r, t.Status.AuthParams.SignedCRT)
		}
	}
	if r.CertificateNotAfter.IsZero() && p.CertCache != nil {
		SetCertificate(&r, p.CertCache.Data[kube.RemoteCertCertificateField])
	}
	if rn := p.ReplicatedRenew; rn != nil {
		r.Renew = stateOf(rn.DeletionTimestamp != nil, rn.Status.AuthParams != nil)
	}
	if UnauthenticatedProvider(p) {
		r.Stage = handshake.StageUnauthenticated
	}
	setSlices(&r, p.ReplicatedSlices, nil)
	return r
}

// UnauthenticatedProvider tells whether what the provider holds for a
// consumer is what unauthenticate leaves (§9.3): its tenant namespace with
// the certificate it once issued, cached, and no Tenant. A handshake that
// never finished has no certificate yet (it is issued when the Tenant is
// accepted); one still going has its Tenant.
func UnauthenticatedProvider(p *PeerObjects) bool {
	return p.Namespace != nil && p.Tenant == nil && p.CertCache != nil && len(p.ReplicatedSlices) == 0
}

func consumerRow(id string, p *PeerObjects, madeBy string, identities map[string]*authv1beta1.Identity) handshake.Peering {
	r := handshake.Peering{RemoteID: id, Role: handshake.RoleConsumer, Generation: handshake.GenerationV1, MadeBy: madeBy,
		Stage:           consumerStageOf(p.Kubeconfig != nil || p.Liqo0xKubeconfig != nil, p.Namespace != nil, p.SignedNonce != nil),
		TenantNamespace: namespaceName(p.Namespace)}
	if i := p.Identity; i != nil {
		r.Identity = stateOf(i.DeletionTimestamp != nil, p.Kubeconfig != nil)
		SetCertificate(&r, i.Spec.AuthParams.SignedCRT)
		r.LastRenewal = LastRenewalOf(i)
	} else if p.Kubeconfig != nil {
		r.Identity = handshake.StateReady // its Identity gone, the Secret left
	}
	if rn := p.LocalRenew; rn != nil {
		r.Renew = stateOf(rn.DeletionTimestamp != nil, rn.Status.AuthParams != nil)
	}
	setSlices(&r, p.LocalSlices, identities)
	return r
}

func liqo0xConsumerRow(id string, p *PeerObjects) handshake.Peering {
	r := handshake.Peering{RemoteID: id, Role: handshake.RoleConsumer, Generation: handshake.GenerationLiqo0x, MadeBy: handshake.MadeByLiqo,
		TenantNamespace: namespaceName(p.Liqo0xNamespace)}
	if fc := p.ForeignCluster; fc != nil {
		r.RemoteName = liqo0x.ForeignClusterName(fc)
		auth := liqo0x.ForeignClusterAuth(fc)
		r.Authentication = oneLine(auth.Status, liqo0x.RedactTokens(auth.Message))
		r.TenantNamespace = cmp.Or(auth.LocalTenantNamespace, r.TenantNamespace)
		r.Stage, r.Identity = handshake.StageAuthenticating, handshake.StatePending
	}
	switch {
	case p.Liqo0xKubeconfig != nil:
		r.MadeBy, r.Stage, r.Identity = handshake.MadeByTool, handshake.StageAuthenticated, handshake.StateReady
		r.TenantNamespace = p.Liqo0xKubeconfig.Namespace
		if cert, err := kubeconfig.ClientCertificate(p.Liqo0xKubeconfig.Data[kube.KubeconfigField]); err == nil {
			setX509(&r, cert)
		}
	case liqo0x.LatestIdentity(p.Liqo0xIdentities) != nil:
		s := liqo0x.LatestIdentity(p.Liqo0xIdentities)
		r.Stage, r.Identity, r.TenantNamespace = handshake.StageAuthenticated, handshake.StateReady, s.Namespace
		SetCertificate(&r, liqo0x.IdentityCertificate(s))
	}
	return r
}

func liqo0xProviderRow(id string, p *PeerObjects) handshake.Peering {
	r := handshake.Peering{RemoteID: id, Role: handshake.RoleProvider, Generation: handshake.GenerationLiqo0x, MadeBy: handshake.MadeByLiqo,
		Stage: handshake.StageIdentityIssued, TenantNamespace: p.IssuedCert.Namespace}
	if fc := p.ForeignCluster; fc != nil {
		r.RemoteName = liqo0x.ForeignClusterName(fc)
	}
	SetCertificate(&r, liqo0x.IssuedCertificate(p.IssuedCert))
	return r
}

// namespaceOnlyRow is a remote known by its tenant namespace alone.
func namespaceOnlyRow(id string, p *PeerObjects, madeBy string) handshake.Peering {
	r := handshake.Peering{RemoteID: id, Generation: handshake.GenerationV1, MadeBy: madeBy, TenantNamespace: namespaceName(p.Namespace)}
	if p.Namespace == nil {
		r.Generation, r.MadeBy, r.TenantNamespace = handshake.GenerationLiqo0x, handshake.MadeByLiqo, namespaceName(p.Liqo0xNamespace)
	}
	return r
}

func namespaceName(ns *corev1.Namespace) string {
	if ns == nil {
		return ""
	}
	return ns.Name
}

func stateOf(deleting, ready bool) handshake.ObjectState {
	switch {
	case deleting:
		return handshake.StateDeleting
	case ready:
		return handshake.StateReady
	}
	return handshake.StatePending
}

// TenantAccepted: the provider's controller filled the Tenant's status.
func TenantAccepted(t *authv1beta1.Tenant) bool {
	return t.Status.AuthParams != nil && t.Status.TenantNamespace != ""
}

// orDefaultCondition is the Tenant condition, Active when unset (the CRD's default).
func orDefaultCondition(c authv1beta1.TenantCondition) authv1beta1.TenantCondition {
	if c == "" {
		return authv1beta1.TenantConditionActive
	}
	return c
}

// SetCertificate sets the row's certificate dates from certPEM (left
// unset when it does not parse).
func SetCertificate(r *handshake.Peering, certPEM []byte) {
	if cert, err := authcrypto.ParseCertificatePEM(certPEM); err == nil {
		setX509(r, cert)
	}
}

func setX509(r *handshake.Peering, cert *x509.Certificate) {
	r.CertificateNotBefore, r.CertificateNotAfter = cert.NotBefore.UTC(), cert.NotAfter.UTC()
}

// setSlices summarises the slices (with their Identities, on a consumer)
// and adds up what they asked and were granted.
func setSlices(r *handshake.Peering, slices []*authv1beta1.ResourceSlice, identities map[string]*authv1beta1.Identity) {
	sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	var asked, granted []map[string]string
	for _, rs := range slices {
		st := SliceStatusOf(rs, identities[rs.Namespace+"/"+kube.ResourceSliceIdentityName(rs.Name)])
		r.Slices = append(r.Slices, st)
		asked, granted = append(asked, st.Requested), append(granted, st.Granted)
	}
	r.Requested, r.Granted = sumQuantities(asked), sumQuantities(granted)
}

// LastRenewalOf reads the Identity's last-renewal annotation; zero: never.
func LastRenewalOf(id *authv1beta1.Identity) time.Time {
	at, err := time.Parse(time.RFC3339, id.Annotations[kube.LastRenewalAnnotation])
	if err != nil {
		return time.Time{}
	}
	return at
}

// oneLine joins a status and its message on one line.
func oneLine(status, message string) string {
	if message == "" {
		return status
	}
	return status + ": " + message
}
