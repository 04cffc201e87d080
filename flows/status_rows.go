package flows

import (
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

// peerObjects are the objects of one cluster about one remote.
type peerObjects struct {
	// v1 and 0.x tenant namespaces.
	namespace, liqo0xNamespace *corev1.Namespace
	// Provider side, v1: the nonce, the Tenant, the certificate cache, the
	// consumer's replicated slices and Renew.
	nonce, certCache *corev1.Secret
	tenant           *authv1beta1.Tenant
	replicatedSlices []*authv1beta1.ResourceSlice
	replicatedRenew  *authv1beta1.Renew
	// Consumer side, v1: the signed nonce, the Identity, its kubeconfig,
	// the local slices and Renew.
	signedNonce, kubeconfig *corev1.Secret
	identity                *authv1beta1.Identity
	localSlices             []*authv1beta1.ResourceSlice
	localRenew              *authv1beta1.Renew
	// Liqo 0.x: consumer (ForeignCluster, Liqo's identities, this tool's
	// kubeconfig) and provider (the certificate it issued).
	foreignCluster   *unstructured.Unstructured
	liqo0xIdentities []*corev1.Secret
	liqo0xKubeconfig *corev1.Secret
	issuedCert       *corev1.Secret
}

// groupByRemote sorts a cluster's objects by the remote they are about.
func groupByRemote(o *peeringObjects) map[string]*peerObjects {
	peers := map[string]*peerObjects{}
	of := func(id string) *peerObjects {
		p := peers[id]
		if p == nil {
			p = &peerObjects{}
			peers[id] = p
		}
		return p
	}
	for _, ns := range o.namespaces {
		if id := ns.Labels[kube.RemoteClusterIDLabel]; id != "" {
			if _, ok := ns.Labels[kube.TenantNamespaceLabel]; ok {
				firstOf(&of(id).namespace, ns)
			}
		}
		if id := ns.Labels[liqo0x.ClusterIDLabel]; id != "" && ns.Labels[liqo0x.TenantNamespaceLabel] == "true" {
			firstOf(&of(id).liqo0xNamespace, ns)
		}
	}
	for _, s := range o.secrets {
		id, p := s.Labels[kube.RemoteClusterIDLabel], (*peerObjects)(nil)
		if id == "" {
			continue
		}
		p = of(id)
		switch {
		case s.Labels[kube.NonceLabel] == "true":
			firstOf(&p.nonce, s)
		case s.Labels[kube.SignedNonceLabel] == "true":
			firstOf(&p.signedNonce, s)
		case liqo0x.IsClientSecret(s):
			if len(s.Data[kube.KubeconfigField]) > 0 {
				firstOf(&p.liqo0xKubeconfig, s)
			}
		case s.Labels[kube.IdentityTypeLabel] == string(authv1beta1.ControlPlaneIdentityType):
			firstOf(&p.kubeconfig, s)
		case s.Name == kube.RemoteCertSecretName:
			firstOf(&p.certCache, s)
		}
	}
	for _, s := range o.liqo0xSecrets {
		id := s.Labels[liqo0x.ClusterIDLabel]
		switch {
		case id == "":
		case liqo0x.IsIdentitySecret(s):
			of(id).liqo0xIdentities = append(of(id).liqo0xIdentities, s)
		case liqo0x.IsIssuedCertificateSecret(s):
			firstOf(&of(id).issuedCert, s)
		}
	}
	for _, t := range o.tenants {
		if id := orElse(t.Labels[kube.RemoteClusterIDLabel], t.Spec.ClusterID); id != "" {
			firstOf(&of(id).tenant, t)
		}
	}
	for _, id := range o.identities {
		if id.Spec.Type == authv1beta1.ControlPlaneIdentityType && id.Spec.ClusterID != "" {
			firstOf(&of(id.Spec.ClusterID).identity, id)
		}
	}
	for _, rs := range o.slices {
		if kube.IsReplicatedSlice(rs) {
			if id := orElse(rs.Labels[kube.OriginIDLabel], rs.Labels[kube.RemoteClusterIDLabel]); id != "" {
				of(id).replicatedSlices = append(of(id).replicatedSlices, rs)
			}
		} else if id := orElse(rs.Labels[kube.RemoteClusterIDLabel], rs.Spec.ProviderClusterID); id != "" {
			of(id).localSlices = append(of(id).localSlices, rs)
		}
	}
	for _, r := range o.renews {
		if r.Spec.IdentityType != authv1beta1.ControlPlaneIdentityType {
			continue
		}
		if kube.IsReplicatedSlice(r) { // the same label marks a replicated Renew
			if id := r.Labels[kube.OriginIDLabel]; id != "" {
				firstOf(&of(id).replicatedRenew, r)
			}
		} else if id := orElse(r.Labels[kube.RemoteClusterIDLabel], r.Labels[kube.RemoteIDLabel]); id != "" {
			firstOf(&of(id).localRenew, r)
		}
	}
	for _, fc := range o.foreignClusters {
		if id := liqo0x.ForeignClusterID(fc); id != "" {
			firstOf(&of(id).foreignCluster, fc)
		}
	}
	return peers
}

// firstOf keeps the first object seen (Liqo refuses to pick among
// duplicates; the overview shows one).
func firstOf[T any](slot **T, v *T) {
	if *slot == nil {
		*slot = v
	}
}

func orElse(s, other string) string {
	if s != "" {
		return s
	}
	return other
}

// rowsOf builds the rows of one cluster's objects, sorted by remote ID
// then role.
func rowsOf(o *peeringObjects) []PeeringRow {
	identities := map[string]*authv1beta1.Identity{}
	for _, id := range o.identities {
		identities[id.Namespace+"/"+id.Name] = id
	}
	madeBy := MadeByTool
	if o.release.Flavor == kube.FlavorV1 || o.release.Flavor == kube.FlavorLiqo0x {
		madeBy = MadeByLiqo
	}
	var rows []PeeringRow
	for id, p := range groupByRemote(o) {
		n := len(rows)
		if p.nonce != nil || p.tenant != nil || p.certCache != nil || len(p.replicatedSlices) > 0 || p.replicatedRenew != nil {
			rows = append(rows, providerRow(id, p, madeBy))
		}
		if p.signedNonce != nil || p.identity != nil || p.kubeconfig != nil || len(p.localSlices) > 0 || p.localRenew != nil {
			rows = append(rows, consumerRow(id, p, madeBy, identities))
		}
		if p.foreignCluster != nil || len(p.liqo0xIdentities) > 0 || p.liqo0xKubeconfig != nil {
			rows = append(rows, liqo0xConsumerRow(id, p))
		}
		if p.issuedCert != nil {
			rows = append(rows, liqo0xProviderRow(id, p))
		}
		if len(rows) == n && (p.namespace != nil || p.liqo0xNamespace != nil) {
			rows = append(rows, namespaceOnlyRow(id, p, madeBy))
		}
	}
	sortRows(rows)
	return rows
}

func sortRows(rows []PeeringRow) {
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

func providerRow(id string, p *peerObjects, madeBy string) PeeringRow {
	r := PeeringRow{RemoteID: id, Role: handshake.RoleProvider, Generation: GenerationV1, MadeBy: madeBy,
		Stage: providerStageOf(p.namespace != nil, p.tenant, p.nonce), TenantNamespace: namespaceName(p.namespace)}
	if t := p.tenant; t != nil {
		r.Tenant = stateOf(t.DeletionTimestamp != nil, tenantAccepted(t))
		r.TenantCondition = string(orDefaultCondition(t.Spec.TenantCondition))
		if t.Status.AuthParams != nil {
			r.setCertificate(t.Status.AuthParams.SignedCRT)
		}
	}
	if r.CertificateNotAfter.IsZero() && p.certCache != nil {
		r.setCertificate(p.certCache.Data[kube.RemoteCertCertificateField])
	}
	if rn := p.replicatedRenew; rn != nil {
		r.Renew = stateOf(rn.DeletionTimestamp != nil, rn.Status.AuthParams != nil)
	}
	if unauthenticatedProvider(p) {
		r.Stage = handshake.StageUnauthenticated
	}
	r.setSlices(p.replicatedSlices, nil)
	return r
}

// unauthenticatedProvider tells whether what the provider holds for a
// consumer is what unauthenticate leaves (§9.3): its tenant namespace with
// the certificate it once issued, cached, and no Tenant. A handshake that
// never finished has no certificate yet (it is issued when the Tenant is
// accepted); one still going has its Tenant.
func unauthenticatedProvider(p *peerObjects) bool {
	return p.namespace != nil && p.tenant == nil && p.certCache != nil && len(p.replicatedSlices) == 0
}

func consumerRow(id string, p *peerObjects, madeBy string, identities map[string]*authv1beta1.Identity) PeeringRow {
	r := PeeringRow{RemoteID: id, Role: handshake.RoleConsumer, Generation: GenerationV1, MadeBy: madeBy,
		Stage:           consumerStageOf(p.kubeconfig != nil || p.liqo0xKubeconfig != nil, p.namespace != nil, p.signedNonce != nil),
		TenantNamespace: namespaceName(p.namespace)}
	if i := p.identity; i != nil {
		r.Identity = stateOf(i.DeletionTimestamp != nil, p.kubeconfig != nil)
		r.setCertificate(i.Spec.AuthParams.SignedCRT)
		r.LastRenewal = lastRenewalOf(i)
	} else if p.kubeconfig != nil {
		r.Identity = StateReady // its Identity gone, the Secret left
	}
	if rn := p.localRenew; rn != nil {
		r.Renew = stateOf(rn.DeletionTimestamp != nil, rn.Status.AuthParams != nil)
	}
	r.setSlices(p.localSlices, identities)
	return r
}

func liqo0xConsumerRow(id string, p *peerObjects) PeeringRow {
	r := PeeringRow{RemoteID: id, Role: handshake.RoleConsumer, Generation: GenerationLiqo0x, MadeBy: MadeByLiqo,
		TenantNamespace: namespaceName(p.liqo0xNamespace)}
	if fc := p.foreignCluster; fc != nil {
		r.RemoteName = liqo0x.ForeignClusterName(fc)
		auth := liqo0x.ForeignClusterAuth(fc)
		r.Authentication = oneLine(auth.Status, liqo0x.RedactTokens(auth.Message))
		r.TenantNamespace = orElse(auth.LocalTenantNamespace, r.TenantNamespace)
		r.Stage, r.Identity = handshake.StageAuthenticating, StatePending
	}
	switch {
	case p.liqo0xKubeconfig != nil:
		r.MadeBy, r.Stage, r.Identity = MadeByTool, handshake.StageAuthenticated, StateReady
		r.TenantNamespace = p.liqo0xKubeconfig.Namespace
		if cert, err := kubeconfig.ClientCertificate(p.liqo0xKubeconfig.Data[kube.KubeconfigField]); err == nil {
			r.setX509(cert)
		}
	case liqo0x.LatestIdentity(p.liqo0xIdentities) != nil:
		s := liqo0x.LatestIdentity(p.liqo0xIdentities)
		r.Stage, r.Identity, r.TenantNamespace = handshake.StageAuthenticated, StateReady, s.Namespace
		r.setCertificate(liqo0x.IdentityCertificate(s))
	}
	return r
}

func liqo0xProviderRow(id string, p *peerObjects) PeeringRow {
	r := PeeringRow{RemoteID: id, Role: handshake.RoleProvider, Generation: GenerationLiqo0x, MadeBy: MadeByLiqo,
		Stage: handshake.StageIdentityIssued, TenantNamespace: p.issuedCert.Namespace}
	if fc := p.foreignCluster; fc != nil {
		r.RemoteName = liqo0x.ForeignClusterName(fc)
	}
	r.setCertificate(liqo0x.IssuedCertificate(p.issuedCert))
	return r
}

// namespaceOnlyRow is a remote known by its tenant namespace alone.
func namespaceOnlyRow(id string, p *peerObjects, madeBy string) PeeringRow {
	r := PeeringRow{RemoteID: id, Generation: GenerationV1, MadeBy: madeBy, TenantNamespace: namespaceName(p.namespace)}
	if p.namespace == nil {
		r.Generation, r.MadeBy, r.TenantNamespace = GenerationLiqo0x, MadeByLiqo, namespaceName(p.liqo0xNamespace)
	}
	return r
}

func namespaceName(ns *corev1.Namespace) string {
	if ns == nil {
		return ""
	}
	return ns.Name
}

func stateOf(deleting, ready bool) ObjectState {
	switch {
	case deleting:
		return StateDeleting
	case ready:
		return StateReady
	}
	return StatePending
}

func tenantAccepted(t *authv1beta1.Tenant) bool {
	return t.Status.AuthParams != nil && t.Status.TenantNamespace != ""
}

// orDefaultCondition is the Tenant condition, Active when unset (the CRD's default).
func orDefaultCondition(c authv1beta1.TenantCondition) authv1beta1.TenantCondition {
	if c == "" {
		return authv1beta1.TenantConditionActive
	}
	return c
}

func (r *PeeringRow) setCertificate(certPEM []byte) {
	if cert, err := authcrypto.ParseCertificatePEM(certPEM); err == nil {
		r.setX509(cert)
	}
}

func (r *PeeringRow) setX509(cert *x509.Certificate) {
	r.CertificateNotBefore, r.CertificateNotAfter = cert.NotBefore.UTC(), cert.NotAfter.UTC()
}

// setSlices summarises the slices (with their Identities, on a consumer)
// and adds up what they asked and were granted.
func (r *PeeringRow) setSlices(slices []*authv1beta1.ResourceSlice, identities map[string]*authv1beta1.Identity) {
	sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	var asked, granted []map[string]string
	for _, rs := range slices {
		st := sliceStatusOf(rs, identities[rs.Namespace+"/"+kube.ResourceSliceIdentityName(rs.Name)])
		r.Slices = append(r.Slices, st)
		asked, granted = append(asked, st.Requested), append(granted, st.Granted)
	}
	r.Requested, r.Granted = sumQuantities(asked), sumQuantities(granted)
}

// lastRenewalOf reads the Identity's last-renewal annotation; zero: never.
func lastRenewalOf(id *authv1beta1.Identity) time.Time {
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
