package liqo0x

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Kinds of Object.
const (
	KindForeignCluster = "ForeignCluster"
	KindSecret         = "Secret"
	KindRoleBinding    = "RoleBinding"
	KindCSR            = "CertificateSigningRequest"
	KindNamespace      = "Namespace"
)

// remoteCertificateSecret is where a 0.x provider keeps the
// certificate it issued to a consumer (§2.4).
const remoteCertificateSecret = "liqo-remote-certificate"

// Object names one object authentication left behind.
type Object struct{ Kind, Namespace, Name string }

// String is "Secret liqo/remote-token-…"; cluster-scoped objects have no namespace.
func (o Object) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// ConsumerLeftovers lists what authentication with providerID left
// on this consumer (§3.6, §10): Liqo 0.x deletes none of it. The
// ForeignCluster, and the local tenant namespace Liqo made for it, are
// removed only when this tool created the ForeignCluster; one liqoctl made
// is reported as kept.
func (c *Cluster) ConsumerLeftovers(ctx context.Context, providerID string) (remove, kept []Object, err error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, nil, err
	}
	fcList, err := fcs.List(ctx, metav1.ListOptions{LabelSelector: labels.Set{ClusterIDLabel: providerID}.String()})
	if err != nil && !kube.IsNotFound(err) { // NotFound: no ForeignCluster CRD (this tool was the consumer)
		return nil, nil, fmt.Errorf("listing the ForeignClusters of %s: %w", providerID, err)
	}
	ownFC := false
	if fcList != nil {
		for _, fc := range fcList.Items {
			obj := Object{Kind: KindForeignCluster, Name: fc.GetName()}
			if fc.GetLabels()[kube.ManagedByLabel] == kube.ManagedByValue {
				remove, ownFC = append(remove, obj), true
			} else {
				kept = append(kept, obj)
			}
		}
	}
	secrets := c.Kube.CoreV1().Secrets(metav1.NamespaceAll)
	for _, sel := range []string{tokenSelector(providerID), identitySelector(providerID)} {
		list, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, nil, fmt.Errorf("listing Secrets labelled %s: %w", sel, err)
		}
		remove = append(remove, secretObjects(list.Items)...)
	}
	// What this tool stored as the 0.x consumer itself (toolconsumer.go).
	list, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: ClientLabel})
	if err != nil {
		return nil, nil, fmt.Errorf("listing Secrets labelled %s: %w", ClientLabel, err)
	}
	for _, s := range list.Items {
		if s.Labels[kube.RemoteClusterIDLabel] == providerID || s.Name == PendingSecretPrefix+providerID {
			remove = append(remove, Object{Kind: KindSecret, Namespace: s.Namespace, Name: s.Name})
		}
	}
	nsSelectors := []string{labels.Set{ClientLabel: "true", kube.RemoteClusterIDLabel: providerID}.String()}
	if ownFC {
		nsSelectors = append(nsSelectors, labels.Set{ClusterIDLabel: providerID, TenantNamespaceLabel: "true"}.String())
	}
	for _, sel := range nsSelectors {
		nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, nil, fmt.Errorf("listing namespaces labelled %s: %w", sel, err)
		}
		for _, ns := range nss.Items {
			remove = append(remove, Object{Kind: KindNamespace, Name: ns.Name})
		}
	}
	return unique(remove), kept, nil
}

func secretObjects(items []corev1.Secret) []Object {
	objs := make([]Object, 0, len(items))
	for _, s := range items {
		objs = append(objs, Object{Kind: KindSecret, Namespace: s.Namespace, Name: s.Name})
	}
	return objs
}

// ProviderLeftovers lists what issuing an identity to consumerID left
// on this 0.x provider (§2.4, §10): the tenant namespace(s) with their
// RoleBindings and liqo-remote-certificate, the CSRs whose subject is the
// consumer, and the consumer's token the provider stored to authenticate back.
func (c *Cluster) ProviderLeftovers(ctx context.Context, consumerID string) ([]Object, error) {
	var objs []Object
	sel := labels.Set{ClusterIDLabel: consumerID, TenantNamespaceLabel: "true"}.String()
	nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("listing namespaces labelled %s: %w", sel, err)
	}
	for _, ns := range nss.Items {
		rbs, err := c.Kube.RbacV1().RoleBindings(ns.Name).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing the RoleBindings in %s: %w", ns.Name, err)
		}
		for _, rb := range rbs.Items {
			if bindsUser(rb, consumerID) {
				objs = append(objs, Object{Kind: KindRoleBinding, Namespace: ns.Name, Name: rb.Name})
			}
		}
		switch _, err := c.Kube.CoreV1().Secrets(ns.Name).Get(ctx, remoteCertificateSecret, metav1.GetOptions{}); {
		case err == nil:
			objs = append(objs, Object{Kind: KindSecret, Namespace: ns.Name, Name: remoteCertificateSecret})
		case !kube.IsNotFound(err):
			return nil, fmt.Errorf("reading Secret %s/%s: %w", ns.Name, remoteCertificateSecret, err)
		}
		objs = append(objs, Object{Kind: KindNamespace, Name: ns.Name})
	}
	csrSel := labels.Set{RemoteTenantCSRLabel: "true"}.String()
	csrs, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{LabelSelector: csrSel})
	if err != nil {
		return nil, fmt.Errorf("listing CSRs labelled %s: %w", csrSel, err)
	}
	for _, csr := range csrs.Items {
		if req, err := crypto.ParseCSR(csr.Spec.Request); err == nil && req.Subject.CommonName == consumerID {
			objs = append(objs, Object{Kind: KindCSR, Name: csr.Name})
		}
	}
	token := RemoteTokenPrefix + consumerID
	switch _, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, token, metav1.GetOptions{}); {
	case err == nil:
		objs = append(objs, Object{Kind: KindSecret, Namespace: c.Namespace, Name: token})
	case !kube.IsNotFound(err):
		return nil, fmt.Errorf("reading Secret %s/%s: %w", c.Namespace, token, err)
	}
	return objs, nil
}

// bindsUser tells whether rb grants something to the user user.
func bindsUser(rb rbacv1.RoleBinding, user string) bool {
	for _, s := range rb.Subjects {
		if s.Kind == rbacv1.UserKind && s.Name == user {
			return true
		}
	}
	return false
}

// deleteRank orders deletions: the ForeignCluster first, so that Liqo
// does not ask again for the identity being removed; grants before the
// rest; tokens before identities; namespaces last (they take their content).
func deleteRank(o Object) int {
	switch {
	case o.Kind == KindForeignCluster:
		return 0
	case o.Kind == KindRoleBinding:
		return 1
	case o.Kind == KindSecret && strings.HasPrefix(o.Name, RemoteTokenPrefix):
		return 2
	case o.Kind == KindSecret:
		return 3
	case o.Kind == KindCSR:
		return 4
	}
	return 5
}

// DeleteObjects deletes objs in a safe order (deleteRank, which is also
// the order of the changes it returns) and waits, with a watch, until the
// namespaces are gone. Already gone is Unchanged: re-running it is harmless.
//
// A namespace is deleted right after the ForeignClusters and before what
// it holds, which goes with it: deleted one by one first, its content could
// be written again meanwhile (Liqo's auth server answers a retry with a new
// certificate in the tenant namespace) and then go with the namespace,
// leaving the consumer an identity the provider no longer holds.
func (c *Cluster) DeleteObjects(ctx context.Context, objs []Object) ([]kube.Change, error) {
	ordered := append([]Object(nil), unique(objs)...)
	sort.SliceStable(ordered, func(i, j int) bool { return deleteRank(ordered[i]) < deleteRank(ordered[j]) })
	done := map[Object]kube.Action{}
	remove := func(o Object) error {
		err := c.deleteObject(ctx, o)
		switch {
		case kube.IsNotFound(err):
			done[o] = kube.Unchanged
		case err != nil:
			return fmt.Errorf("deleting %s: %w", o, err)
		default:
			done[o] = kube.Deleted
		}
		if o.Kind == KindForeignCluster && done[o] == kube.Deleted {
			// Liqo's finalizer runs first; until the object is gone Liqo may
			// still write what is about to be deleted (its tenant namespace).
			return c.waitForeignClusterGone(ctx, o.Name)
		}
		return nil
	}
	namespaces := map[string]bool{}
	first := []Object{}
	for _, o := range ordered {
		if o.Kind == KindForeignCluster {
			first = append(first, o)
		}
	}
	for _, o := range ordered {
		if o.Kind == KindNamespace {
			first, namespaces[o.Name] = append(first, o), true
		}
	}
	changes := func() []kube.Change {
		out := make([]kube.Change, 0, len(done))
		for _, o := range ordered {
			if action, ok := done[o]; ok {
				out = append(out, kube.Change{Object: o.String(), Action: action})
			}
		}
		return out
	}
	for _, o := range first {
		if err := remove(o); err != nil {
			return changes(), err
		}
	}
	for _, o := range ordered {
		switch {
		case o.Kind == KindForeignCluster || o.Kind == KindNamespace:
		case namespaces[o.Namespace]:
			// Goes with its namespace, as the wait below makes sure.
			done[o] = done[Object{Kind: KindNamespace, Name: o.Namespace}]
		default:
			if err := remove(o); err != nil {
				return changes(), err
			}
		}
	}
	nsClient := c.Kube.CoreV1().Namespaces()
	for _, o := range first {
		if o.Kind != KindNamespace {
			continue
		}
		if err := kube.WaitForDeletion(ctx, kube.ListWatch(nsClient.List, nsClient.Watch, kube.ByName(o.Name)), &corev1.Namespace{}, "namespace "+o.Name+" to be deleted"); err != nil {
			return changes(), err
		}
	}
	return changes(), nil
}

func (c *Cluster) waitForeignClusterGone(ctx context.Context, name string) error {
	fcs, err := c.foreignClusters()
	if err != nil {
		return err
	}
	err = kube.WaitForDeletion(ctx, kube.ListWatch(fcs.List, fcs.Watch, kube.ByName(name)), &unstructured.Unstructured{}, "ForeignCluster "+name+" to be deleted")
	if errors.Is(err, kube.ErrWaitTimeout) {
		return fmt.Errorf("%w (Liqo's liqo-controller-manager removes its finalizer: is it running?)", err)
	}
	return err
}

func (c *Cluster) deleteObject(ctx context.Context, o Object) error {
	opts := metav1.DeleteOptions{}
	switch o.Kind {
	case KindForeignCluster:
		fcs, err := c.foreignClusters()
		if err != nil {
			return err
		}
		return fcs.Delete(ctx, o.Name, opts)
	case KindSecret:
		return c.Kube.CoreV1().Secrets(o.Namespace).Delete(ctx, o.Name, opts)
	case KindRoleBinding:
		return c.Kube.RbacV1().RoleBindings(o.Namespace).Delete(ctx, o.Name, opts)
	case KindCSR:
		return c.Kube.CertificatesV1().CertificateSigningRequests().Delete(ctx, o.Name, opts)
	case KindNamespace:
		return c.Kube.CoreV1().Namespaces().Delete(ctx, o.Name, opts)
	}
	return fmt.Errorf("unknown kind %q", o.Kind)
}

func unique(objs []Object) []Object {
	seen := map[Object]bool{}
	out := objs[:0:0]
	for _, o := range objs {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// PeeringActive is "" or a one-line reason when the ForeignCluster
// of providerID still peers or is about to (§3.6): removing its identity
// would break that peering, so it must be unpeered with liqoctl first.
func (c *Cluster) PeeringActive(ctx context.Context, providerID string) (string, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return "", err
	}
	fc, err := c.foreignCluster(ctx, fcs, providerID)
	switch {
	case apierrors.IsNotFound(err):
		return "", nil // no ForeignCluster CRD
	case err != nil || fc == nil:
		return "", err
	}
	return peeringReason(fc, providerID), nil
}

// peeringReason says why fc still peers, "" when both directions are None.
func peeringReason(fc *unstructured.Unstructured, providerID string) string {
	for _, cond := range []string{"OutgoingPeering", "IncomingPeering"} {
		if status, _, _ := peeringCondition(fc, cond); status != "" && status != "None" {
			return fmt.Sprintf("ForeignCluster %s still peers with %s (%s %s): run `liqoctl unpeer out-of-band %s` first",
				fc.GetName(), providerID, cond, status, fc.GetName())
		}
	}
	return ""
}

// UndoPeer removes, after an authentication that failed, what
// ApplyPeer created (its changes with Action Created) and, when it
// created the ForeignCluster, the local tenant namespace Liqo then made for
// providerID unless it holds an identity. An object that existed before is
// left as it is.
func (c *Cluster) UndoPeer(ctx context.Context, providerID string, applied []kube.Change) ([]kube.Change, error) {
	var objs []Object
	fcCreated := false
	for _, ch := range applied {
		if ch.Action != kube.Created {
			continue
		}
		kind, ref, _ := strings.Cut(ch.Object, " ")
		o := Object{Kind: kind, Name: ref}
		if ns, name, namespaced := strings.Cut(ref, "/"); namespaced {
			o.Namespace, o.Name = ns, name
		}
		objs = append(objs, o)
		fcCreated = fcCreated || kind == KindForeignCluster
	}
	// The ForeignCluster first (waiting until Liqo let it go): until then
	// Liqo may still make its tenant namespace.
	changes, err := c.DeleteObjects(ctx, objs)
	if err != nil || !fcCreated {
		return changes, err
	}
	sel := labels.Set{ClusterIDLabel: providerID, TenantNamespaceLabel: "true"}.String()
	nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return changes, fmt.Errorf("listing namespaces labelled %s: %w", sel, err)
	}
	var empty []Object
	for _, ns := range nss.Items {
		ids, err := c.Kube.CoreV1().Secrets(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: identitySelector(providerID)})
		if err != nil {
			return changes, fmt.Errorf("listing the identities in %s: %w", ns.Name, err)
		}
		if len(ids.Items) == 0 {
			empty = append(empty, Object{Kind: KindNamespace, Name: ns.Name})
		}
	}
	more, err := c.DeleteObjects(ctx, empty)
	return append(changes, more...), err
}
