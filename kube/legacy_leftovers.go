package kube

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
)

// Kinds of LegacyObject.
const (
	LegacyKindForeignCluster = "ForeignCluster"
	LegacyKindSecret         = "Secret"
	LegacyKindRoleBinding    = "RoleBinding"
	LegacyKindCSR            = "CertificateSigningRequest"
	LegacyKindNamespace      = "Namespace"
)

// legacyRemoteCertificateSecret is where a 0.x provider keeps the
// certificate it issued to a consumer (§2.4).
const legacyRemoteCertificateSecret = "liqo-remote-certificate"

// LegacyObject names one object authentication left behind.
type LegacyObject struct{ Kind, Namespace, Name string }

// String is "Secret liqo/remote-token-…"; cluster-scoped objects have no namespace.
func (o LegacyObject) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// LegacyConsumerLeftovers lists what authentication with providerID left
// on this consumer (§3.6, §10): Liqo 0.x deletes none of it. The
// ForeignCluster, and the local tenant namespace Liqo made for it, are
// removed only when this tool created the ForeignCluster; one liqoctl made
// is reported as kept.
func (c *Cluster) LegacyConsumerLeftovers(ctx context.Context, providerID string) (remove, kept []LegacyObject, err error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, nil, err
	}
	fcList, err := fcs.List(ctx, metav1.ListOptions{LabelSelector: labels.Set{LegacyClusterIDLabel: providerID}.String()})
	if err != nil && !IsNotFound(err) { // NotFound: no ForeignCluster CRD (this tool was the consumer)
		return nil, nil, fmt.Errorf("listing the ForeignClusters of %s: %w", providerID, err)
	}
	ownFC := false
	if fcList != nil {
		for _, fc := range fcList.Items {
			obj := LegacyObject{Kind: LegacyKindForeignCluster, Name: fc.GetName()}
			if fc.GetLabels()[ManagedByLabel] == ManagedByValue {
				remove, ownFC = append(remove, obj), true
			} else {
				kept = append(kept, obj)
			}
		}
	}
	secrets := c.Kube.CoreV1().Secrets(metav1.NamespaceAll)
	for _, sel := range []string{legacyTokenSelector(providerID), legacyIdentitySelector(providerID)} {
		list, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, nil, fmt.Errorf("listing Secrets labelled %s: %w", sel, err)
		}
		remove = append(remove, legacySecretObjects(list.Items)...)
	}
	// What this tool stored as the 0.x consumer itself (legacy_client.go).
	list, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: LegacyClientLabel})
	if err != nil {
		return nil, nil, fmt.Errorf("listing Secrets labelled %s: %w", LegacyClientLabel, err)
	}
	for _, s := range list.Items {
		if s.Labels[RemoteClusterIDLabel] == providerID || s.Name == LegacyPendingSecretPrefix+providerID {
			remove = append(remove, LegacyObject{Kind: LegacyKindSecret, Namespace: s.Namespace, Name: s.Name})
		}
	}
	nsSelectors := []string{labels.Set{LegacyClientLabel: "true", RemoteClusterIDLabel: providerID}.String()}
	if ownFC {
		nsSelectors = append(nsSelectors, labels.Set{LegacyClusterIDLabel: providerID, LegacyTenantNamespaceLabel: "true"}.String())
	}
	for _, sel := range nsSelectors {
		nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return nil, nil, fmt.Errorf("listing namespaces labelled %s: %w", sel, err)
		}
		for _, ns := range nss.Items {
			remove = append(remove, LegacyObject{Kind: LegacyKindNamespace, Name: ns.Name})
		}
	}
	return legacyUnique(remove), kept, nil
}

func legacySecretObjects(items []corev1.Secret) []LegacyObject {
	objs := make([]LegacyObject, 0, len(items))
	for _, s := range items {
		objs = append(objs, LegacyObject{Kind: LegacyKindSecret, Namespace: s.Namespace, Name: s.Name})
	}
	return objs
}

// LegacyProviderLeftovers lists what issuing an identity to consumerID left
// on this 0.x provider (§2.4, §10): the tenant namespace(s) with their
// RoleBindings and liqo-remote-certificate, the CSRs whose subject is the
// consumer, and the consumer's token the provider stored to authenticate back.
func (c *Cluster) LegacyProviderLeftovers(ctx context.Context, consumerID string) ([]LegacyObject, error) {
	var objs []LegacyObject
	sel := labels.Set{LegacyClusterIDLabel: consumerID, LegacyTenantNamespaceLabel: "true"}.String()
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
			if legacyBindsUser(rb, consumerID) {
				objs = append(objs, LegacyObject{Kind: LegacyKindRoleBinding, Namespace: ns.Name, Name: rb.Name})
			}
		}
		switch _, err := c.Kube.CoreV1().Secrets(ns.Name).Get(ctx, legacyRemoteCertificateSecret, metav1.GetOptions{}); {
		case err == nil:
			objs = append(objs, LegacyObject{Kind: LegacyKindSecret, Namespace: ns.Name, Name: legacyRemoteCertificateSecret})
		case !IsNotFound(err):
			return nil, fmt.Errorf("reading Secret %s/%s: %w", ns.Name, legacyRemoteCertificateSecret, err)
		}
		objs = append(objs, LegacyObject{Kind: LegacyKindNamespace, Name: ns.Name})
	}
	csrSel := labels.Set{LegacyRemoteTenantCSRLabel: "true"}.String()
	csrs, err := c.Kube.CertificatesV1().CertificateSigningRequests().List(ctx, metav1.ListOptions{LabelSelector: csrSel})
	if err != nil {
		return nil, fmt.Errorf("listing CSRs labelled %s: %w", csrSel, err)
	}
	for _, csr := range csrs.Items {
		if req, err := crypto.ParseCSR(csr.Spec.Request); err == nil && req.Subject.CommonName == consumerID {
			objs = append(objs, LegacyObject{Kind: LegacyKindCSR, Name: csr.Name})
		}
	}
	token := LegacyRemoteTokenPrefix + consumerID
	switch _, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, token, metav1.GetOptions{}); {
	case err == nil:
		objs = append(objs, LegacyObject{Kind: LegacyKindSecret, Namespace: c.Namespace, Name: token})
	case !IsNotFound(err):
		return nil, fmt.Errorf("reading Secret %s/%s: %w", c.Namespace, token, err)
	}
	return objs, nil
}

// legacyBindsUser tells whether rb grants something to the user user.
func legacyBindsUser(rb rbacv1.RoleBinding, user string) bool {
	for _, s := range rb.Subjects {
		if s.Kind == rbacv1.UserKind && s.Name == user {
			return true
		}
	}
	return false
}

// legacyDeleteRank orders deletions: the ForeignCluster first, so that Liqo
// does not ask again for the identity being removed; grants before the
// rest; tokens before identities; namespaces last (they take their content).
func legacyDeleteRank(o LegacyObject) int {
	switch {
	case o.Kind == LegacyKindForeignCluster:
		return 0
	case o.Kind == LegacyKindRoleBinding:
		return 1
	case o.Kind == LegacyKindSecret && strings.HasPrefix(o.Name, LegacyRemoteTokenPrefix):
		return 2
	case o.Kind == LegacyKindSecret:
		return 3
	case o.Kind == LegacyKindCSR:
		return 4
	}
	return 5
}

// DeleteLegacyObjects deletes objs in a safe order (legacyDeleteRank) and
// waits, with a watch, until the namespaces are gone. Already gone is
// Unchanged: re-running it is harmless.
func (c *Cluster) DeleteLegacyObjects(ctx context.Context, objs []LegacyObject) ([]Change, error) {
	ordered := append([]LegacyObject(nil), legacyUnique(objs)...)
	sort.SliceStable(ordered, func(i, j int) bool { return legacyDeleteRank(ordered[i]) < legacyDeleteRank(ordered[j]) })
	changes := make([]Change, 0, len(ordered))
	var namespaces []string
	for _, o := range ordered {
		err := c.deleteLegacyObject(ctx, o)
		ch := Change{Object: o.String(), Action: Deleted}
		switch {
		case IsNotFound(err):
			ch.Action = Unchanged
		case err != nil:
			return changes, fmt.Errorf("deleting %s: %w", o, err)
		}
		changes = append(changes, ch)
		if o.Kind == LegacyKindForeignCluster && ch.Action == Deleted {
			// Liqo's finalizer runs first; until the object is gone Liqo may
			// still write what is about to be deleted (its tenant namespace).
			if err := c.waitLegacyForeignClusterGone(ctx, o.Name); err != nil {
				return changes, err
			}
		}
		if o.Kind == LegacyKindNamespace {
			namespaces = append(namespaces, o.Name)
		}
	}
	nsClient := c.Kube.CoreV1().Namespaces()
	for _, ns := range namespaces {
		if err := WaitForDeletion(ctx, ListWatch(nsClient.List, nsClient.Watch, ByName(ns)), &corev1.Namespace{}, "namespace "+ns+" to be deleted"); err != nil {
			return changes, err
		}
	}
	return changes, nil
}

func (c *Cluster) waitLegacyForeignClusterGone(ctx context.Context, name string) error {
	fcs, err := c.foreignClusters()
	if err != nil {
		return err
	}
	err = WaitForDeletion(ctx, ListWatch(fcs.List, fcs.Watch, ByName(name)), &unstructured.Unstructured{}, "ForeignCluster "+name+" to be deleted")
	if errors.Is(err, ErrWaitTimeout) {
		return fmt.Errorf("%w (Liqo's liqo-controller-manager removes its finalizer: is it running?)", err)
	}
	return err
}

func (c *Cluster) deleteLegacyObject(ctx context.Context, o LegacyObject) error {
	opts := metav1.DeleteOptions{}
	switch o.Kind {
	case LegacyKindForeignCluster:
		fcs, err := c.foreignClusters()
		if err != nil {
			return err
		}
		return fcs.Delete(ctx, o.Name, opts)
	case LegacyKindSecret:
		return c.Kube.CoreV1().Secrets(o.Namespace).Delete(ctx, o.Name, opts)
	case LegacyKindRoleBinding:
		return c.Kube.RbacV1().RoleBindings(o.Namespace).Delete(ctx, o.Name, opts)
	case LegacyKindCSR:
		return c.Kube.CertificatesV1().CertificateSigningRequests().Delete(ctx, o.Name, opts)
	case LegacyKindNamespace:
		return c.Kube.CoreV1().Namespaces().Delete(ctx, o.Name, opts)
	}
	return fmt.Errorf("unknown kind %q", o.Kind)
}

func legacyUnique(objs []LegacyObject) []LegacyObject {
	seen := map[LegacyObject]bool{}
	out := objs[:0:0]
	for _, o := range objs {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// LegacyPeeringActive is "" or a one-line reason when the ForeignCluster
// of providerID still peers or is about to (§3.6): removing its identity
// would break that peering, so it must be unpeered with liqoctl first.
func (c *Cluster) LegacyPeeringActive(ctx context.Context, providerID string) (string, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return "", err
	}
	fc, err := c.legacyForeignCluster(ctx, fcs, providerID)
	switch {
	case apierrors.IsNotFound(err):
		return "", nil // no ForeignCluster CRD
	case err != nil || fc == nil:
		return "", err
	}
	return legacyPeeringReason(fc, providerID), nil
}

// legacyPeeringReason says why fc still peers, "" when both directions are None.
func legacyPeeringReason(fc *unstructured.Unstructured, providerID string) string {
	for _, cond := range []string{"OutgoingPeering", "IncomingPeering"} {
		if status, _, _ := legacyCondition(fc, cond); status != "" && status != "None" {
			return fmt.Sprintf("ForeignCluster %s still peers with %s (%s %s): run `liqoctl unpeer out-of-band %s` first",
				fc.GetName(), providerID, cond, status, fc.GetName())
		}
	}
	return ""
}

// UndoLegacyPeer removes, after an authentication that failed, what
// ApplyLegacyPeer created (its changes with Action Created) and, when it
// created the ForeignCluster, the local tenant namespace Liqo then made for
// providerID unless it holds an identity. An object that existed before is
// left as it is.
func (c *Cluster) UndoLegacyPeer(ctx context.Context, providerID string, applied []Change) ([]Change, error) {
	var objs []LegacyObject
	fcCreated := false
	for _, ch := range applied {
		if ch.Action != Created {
			continue
		}
		kind, ref, _ := strings.Cut(ch.Object, " ")
		o := LegacyObject{Kind: kind, Name: ref}
		if ns, name, namespaced := strings.Cut(ref, "/"); namespaced {
			o.Namespace, o.Name = ns, name
		}
		objs = append(objs, o)
		fcCreated = fcCreated || kind == LegacyKindForeignCluster
	}
	// The ForeignCluster first (waiting until Liqo let it go): until then
	// Liqo may still make its tenant namespace.
	changes, err := c.DeleteLegacyObjects(ctx, objs)
	if err != nil || !fcCreated {
		return changes, err
	}
	sel := labels.Set{LegacyClusterIDLabel: providerID, LegacyTenantNamespaceLabel: "true"}.String()
	nss, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return changes, fmt.Errorf("listing namespaces labelled %s: %w", sel, err)
	}
	var empty []LegacyObject
	for _, ns := range nss.Items {
		ids, err := c.Kube.CoreV1().Secrets(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: legacyIdentitySelector(providerID)})
		if err != nil {
			return changes, fmt.Errorf("listing the identities in %s: %w", ns.Name, err)
		}
		if len(ids.Items) == 0 {
			empty = append(empty, LegacyObject{Kind: LegacyKindNamespace, Name: ns.Name})
		}
	}
	more, err := c.DeleteLegacyObjects(ctx, empty)
	return append(changes, more...), err
}
