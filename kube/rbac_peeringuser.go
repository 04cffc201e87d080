package kube

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/assets"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// The peering user (§9.4) is a restricted human user of the provider: the
// provider's admin makes one per consumer and hands its kubeconfig to the
// consumer's admin, who then runs the whole handshake alone. It may do what
// Liqo's roles liqo-peering-user-tenant-ns (in the consumer's tenant
// namespace) and liqo-peering-user-liqo-ns (in the Liqo namespace) allow,
// nothing more; the provider's controller does the rest.

// PeeringUserOptions tune GeneratePeeringUser.
type PeeringUserOptions struct {
	// KeyType of the user's new key pair; "" = Ed25519, Liqo's default.
	KeyType authcrypto.KeyType
	// APIServer and CA are the server and CA written in the kubeconfig
	// (flows.GeneratePeeringUser gives those an Identity advertises, §6.4;
	// a nil CA: publicly trusted). APIServer "" = this client's own
	// server and CA.
	APIServer string
	CA        []byte
	// Timeout bounds the wait for the certificate; 0 = 30s, like Liqo.
	Timeout time.Duration
	// Report, when set, is told about each object created, replaced or
	// found in place.
	Report func(Change)
}

// GeneratePeeringUser makes the peering user of consumerID and returns its
// kubeconfig, byte-compatible with `liqoctl generate peering-user`: a new
// key pair (o.KeyType, Ed25519 by default), a certificate issued through the
// Kubernetes CSR API (CSR object liqo-peer-user-<id>, CN
// liqo-peer-user-<id>-<32 hex>, O liqo.io), the RoleBindings
// liqo-peer-user-<id>-tenant-ns-writer in the tenant namespace (created
// when missing) and liqo-peer-user-<id>-liqo-ns-reader in the Liqo
// namespace, all labelled liqo.io/peering-user-name; in the kubeconfig, user
// <id>-user, cluster <id>, the tenant namespace as default namespace.
//
// The private key is in the returned kubeconfig only: it is a credential
// for a human, never stored on the cluster nor logged. Running it again
// makes a new key and certificate, replaces the CSR object and binds the
// new user in the same RoleBindings: the previous kubeconfig loses its
// permissions (Liqo instead refuses while the user exists).
func (c *Cluster) GeneratePeeringUser(ctx context.Context, consumerID string, o PeeringUserOptions) ([]byte, error) {
	if err := authcrypto.ValidateClusterID(consumerID); err != nil {
		return nil, err
	}
	report := o.Report
	if report == nil {
		report = func(Change) {}
	}
	clusterRole, role, err := c.peeringUserRoles(ctx)
	if err != nil {
		return nil, err
	}
	server, ca := o.APIServer, o.CA
	if server == "" {
		own, err := c.Advertise(ctx, AdvertiseOptions{})
		if err != nil {
			return nil, err
		}
		server, ca = own.APIServer, own.CA
	}
	ns, created, err := c.EnsureTenantNamespace(ctx, consumerID)
	if err != nil {
		return nil, err
	}
	nsChange := Change{Object: "Namespace " + ns.Name, Action: Unchanged}
	if created {
		nsChange.Action = Created
	}
	report(nsChange)

	key, err := authcrypto.GenerateKey(cmp.Or(o.KeyType, authcrypto.KeyEd25519))
	if err != nil {
		return nil, err
	}
	user := newPeeringUserCN(consumerID)
	csr, err := authcrypto.NewUserCSR(key, user)
	if err != nil {
		return nil, err
	}
	cert, ch, err := c.issuePeeringUserCertificate(ctx, consumerID, csr, o.Timeout)
	if err != nil {
		return nil, err
	}
	report(ch)

	name := PeeringUserName(consumerID)
	for _, b := range []struct {
		namespace, name string
		ref             rbacv1.RoleRef
	}{
		{ns.Name, PeeringUserTenantBindingName(consumerID), rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole}},
		{c.Namespace, PeeringUserLiqoNSBindingName(consumerID), rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role}},
	} {
		ch, err := c.bindPeeringUser(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: b.name, Namespace: b.namespace, Labels: map[string]string{PeeringUserNameLabel: name}},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
			RoleRef:    b.ref,
		})
		if err != nil {
			return nil, err
		}
		report(ch)
	}

	keyPEM, err := authcrypto.EncodePrivateKeyPEM(key)
	if err != nil {
		return nil, err
	}
	return peeringUserKubeconfig(consumerID, server, ns.Name, ca, cert, keyPEM)
}

// DeletePeeringUser removes the peering user of consumerID, as `liqoctl
// delete peering-user` does: its RoleBindings (found by label, in any
// namespace) and its CSR object. Deleting what is already gone changes
// nothing. A client certificate cannot be revoked: its kubeconfig still
// authenticates until the certificate expires, but with the RoleBindings
// gone it may do nothing more than any authenticated user. The tenant
// namespace stays (as with Liqo).
func (c *Cluster) DeletePeeringUser(ctx context.Context, consumerID string) ([]Change, error) {
	if err := authcrypto.ValidateClusterID(consumerID); err != nil {
		return nil, err
	}
	selector := metav1.ListOptions{LabelSelector: labels.Set{PeeringUserNameLabel: PeeringUserName(consumerID)}.String()}
	bindings, err := c.Kube.RbacV1().RoleBindings("").List(ctx, selector)
	if err != nil {
		return nil, fmt.Errorf("looking up the RoleBindings of the peering user: %w", err)
	}
	var changes []Change
	for _, rb := range bindings.Items {
		ch, err := deleteIfPresent(ctx, c.Kube.RbacV1().RoleBindings(rb.Namespace).Delete, "RoleBinding "+rb.Namespace+"/"+rb.Name, rb.Name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	csrs, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, selector)
	if err != nil {
		return changes, fmt.Errorf("looking up the CertificateSigningRequest of the peering user: %w", err)
	}
	for _, csr := range csrs.Items {
		ch, err := deleteIfPresent(ctx, c.Kube.CertificatesV1().CertificateSigningRequests().Delete, "CertificateSigningRequest "+csr.Name, csr.Name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, ch)
	}
	return changes, nil
}

// newPeeringUserCN is a new user name for the peering user's certificate:
// liqo-peer-user-<id>-<32 hex>, so that a new certificate is never the
// same user as an earlier one.
func newPeeringUserCN(consumerID string) string {
	suffix := make([]byte, 16)
	_, _ = rand.Read(suffix) // never fails (crypto/rand)
	return PeeringUserName(consumerID) + "-" + hex.EncodeToString(suffix)
}

// peeringUserRoles finds Liqo's peering-user ClusterRole and, in the Liqo
// namespace, Role by label, as liqoctl does: exactly one of each.
func (c *Cluster) peeringUserRoles(ctx context.Context) (clusterRole, role string, err error) {
	opts := metav1.ListOptions{LabelSelector: PeeringUserRoleSelector}
	crs, err := c.Kube.RbacV1().ClusterRoles().List(ctx, opts)
	if err != nil {
		return "", "", fmt.Errorf("looking up the peering-user ClusterRole: %w", err)
	}
	rs, err := c.Kube.RbacV1().Roles(c.Namespace).List(ctx, opts)
	if err != nil {
		return "", "", fmt.Errorf("looking up the peering-user Role in namespace %s: %w", c.Namespace, err)
	}
	one := func(what string, names []string) (string, error) {
		switch len(names) {
		case 0:
			return "", fmt.Errorf("no peering-user %s (labelled %s): run `liqo-auth-tui init` on this cluster", what, PeeringUserRoleSelector)
		case 1:
			return names[0], nil
		}
		return "", fmt.Errorf("multiple peering-user %ss found (labelled %s): %v", what, PeeringUserRoleSelector, names)
	}
	var crNames, rNames []string
	for _, r := range crs.Items {
		crNames = append(crNames, r.Name)
	}
	for _, r := range rs.Items {
		rNames = append(rNames, r.Name)
	}
	if clusterRole, err = one("ClusterRole", crNames); err != nil {
		return "", "", err
	}
	if role, err = one("Role in namespace "+c.Namespace, rNames); err != nil {
		return "", "", err
	}
	return clusterRole, role, nil
}

// issuePeeringUserCertificate gets csr signed under the CSR object
// liqo-peer-user-<id>, replacing the one of an earlier run, and keeps the
// object (DeletePeeringUser removes it), like liqoctl.
func (c *Cluster) issuePeeringUserCertificate(ctx context.Context, consumerID string, csr []byte, timeout time.Duration) ([]byte, Change, error) {
	name := PeeringUserName(consumerID)
	ch, err := deleteIfPresent(ctx, c.Kube.CertificatesV1().CertificateSigningRequests().Delete, "CertificateSigningRequest "+name, name)
	if err != nil {
		return nil, ch, err
	}
	if ch.Action == Deleted {
		ch.Action = Updated // replaced
	} else {
		ch.Action = Created
	}
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	issueCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cert, err := c.IssueCertificate(issueCtx, CSRRequest{
		PEM: csr, Name: name, Labels: map[string]string{PeeringUserNameLabel: name},
		Reason: PeeringUserApprovalReason, Message: PeeringUserApprovalMessage, KeepObject: true,
	})
	if err != nil {
		return nil, ch, fmt.Errorf("issuing the certificate of the peering user: %w", err)
	}
	return cert, ch, nil
}

// bindPeeringUser creates the RoleBinding want, or makes the existing one
// bind want's user (a roleRef cannot change: a binding to another role is
// replaced).
func (c *Cluster) bindPeeringUser(ctx context.Context, want *rbacv1.RoleBinding) (Change, error) {
	bindings := c.Kube.RbacV1().RoleBindings(want.Namespace)
	if old, err := bindings.Get(ctx, want.Name, metav1.GetOptions{}); err == nil && old.RoleRef != want.RoleRef {
		if _, err := deleteIfPresent(ctx, bindings.Delete, "RoleBinding "+want.Namespace+"/"+want.Name, want.Name); err != nil {
			return Change{}, err
		}
	}
	_, ch, err := replaceObject(ctx, bindings, "RoleBinding", want, func(existing, want *rbacv1.RoleBinding) {
		existing.Subjects = want.Subjects
	})
	if err != nil {
		return ch, fmt.Errorf("binding the peering user: %s: %w", ch.Object, err)
	}
	return ch, nil
}

// peeringUserKubeconfig is the kubeconfig liqoctl writes for a peering
// user: cluster <id>, user <id>-user, context default-context whose
// namespace is the tenant namespace.
func peeringUserKubeconfig(consumerID, server, namespace string, ca, cert, keyPEM []byte) ([]byte, error) {
	user := PeeringUserKubeconfigUser(consumerID)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[consumerID] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: keyPEM}
	cfg.Contexts[PeeringUserKubeconfigContext] = &clientcmdapi.Context{Cluster: consumerID, AuthInfo: user, Namespace: namespace}
	cfg.CurrentContext = PeeringUserKubeconfigContext
	return clientcmd.Write(*cfg)
}

// peeringUserManifests decodes the embedded peering-user roles, the Role
// placed in namespace.
func peeringUserManifests(namespace string) (*rbacv1.ClusterRole, *rbacv1.Role, error) {
	docs, err := assets.PeeringUserManifests()
	if err != nil {
		return nil, nil, err
	}
	if len(docs) != 2 {
		return nil, nil, fmt.Errorf("embedded peering-user roles: want a Role and a ClusterRole, found %d files", len(docs))
	}
	// Sorted by file name: liqo-peering-user-liqo-ns-Role, then -tenant-ns-ClusterRole.
	role, clusterRole := &rbacv1.Role{}, &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(docs[0], role); err != nil || role.Kind != "Role" {
		return nil, nil, fmt.Errorf("embedded peering-user Role: kind %q: %v", role.Kind, err)
	}
	if err := yaml.UnmarshalStrict(docs[1], clusterRole); err != nil || clusterRole.Kind != "ClusterRole" {
		return nil, nil, fmt.Errorf("embedded peering-user ClusterRole: kind %q: %v", clusterRole.Kind, err)
	}
	role.Namespace = namespace
	return clusterRole, role, nil
}
