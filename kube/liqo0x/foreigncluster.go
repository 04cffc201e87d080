package liqo0x

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// Values of a 0.x ForeignCluster's spec and status (§3.3, §3.4).
const (
	outOfBand          = "OutOfBand"
	peeringYes         = "Yes"
	peeringNo          = "No"
	peeringAuto        = "Auto"
	authCondition      = "AuthenticationStatus"
	processCondition   = "ProcessForeignClusterStatus"
	established        = "Established"
	authNotReachable   = "AuthNotReachable"
	foreignClusterKind = "ForeignCluster"
)

// PeerOptions tunes ApplyPeer.
type PeerOptions struct {
	Peer bool   // outgoingPeeringEnabled "Yes" (default "No": authentication only; auth runs anyway)
	Name string // ForeignCluster name when created ("" = info.ClusterName)
}

func (c *Cluster) foreignClusters() (dynamic.NamespaceableResourceInterface, error) {
	dc, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, fmt.Errorf("building a client for %s: %w", c.Server, err)
	}
	return dc.Resource(ForeignClusters), nil
}

// ApplyPeer does what `liqoctl peer out-of-band` does, in its order
// (§4, §8(2)): the token Secret first, then the ForeignCluster, so that
// Liqo reads the new token when it reconciles the ForeignCluster. Liqo v0.10
// does not watch the token Secret (§3.2): when only the token changed, a
// label bump on the ForeignCluster makes it retry at once. Every check runs
// before the first write. An existing ForeignCluster keeps its name, cluster
// name, TLS and incoming settings; without o.Peer its outgoing peering is
// left as it is (authentication never turns a peering off).
func (c *Cluster) ApplyPeer(ctx context.Context, info *peerinfo.Info, o PeerOptions) ([]kube.Change, error) {
	if info == nil || info.ClusterID == "" || info.AuthURL == "" || info.Token == "" {
		return nil, errors.New("the peer info lacks the provider's cluster ID, auth URL or token: generate it again on the provider")
	}
	switch own, err := c.ClusterID(ctx); {
	case err == nil && own == info.ClusterID:
		return nil, fmt.Errorf("the peer info is this cluster's own (cluster ID %s): apply the provider's peer info on the consumer", own)
	case err != nil && !kube.IsNotFoundOrNoID(err):
		return nil, err
	}
	withPeeringType, err := c.hasPeeringType(ctx)
	if err != nil {
		return nil, err
	}
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	existing, err := c.foreignCluster(ctx, fcs, info.ClusterID)
	if err != nil {
		return nil, err
	}
	if existing != nil && withPeeringType {
		if pt, _, _ := unstructured.NestedString(existing.Object, "spec", "peeringType"); pt != "" && pt != outOfBand {
			return nil, fmt.Errorf("ForeignCluster %s peers with %s with peeringType %s, which cannot change: unpeer it (liqoctl unpeer in-band %s) first",
				existing.GetName(), info.ClusterID, pt, existing.GetName())
		}
	}
	if err := c.checkOtherTokens(ctx, info); err != nil {
		return nil, err
	}

	secretChange, tokenChanged, err := c.applyTokenSecret(ctx, info)
	if err != nil {
		return nil, err
	}
	fcChange, err := c.applyForeignCluster(ctx, fcs, existing, info, o, withPeeringType, tokenChanged)
	if err != nil {
		return []kube.Change{secretChange}, err
	}
	return []kube.Change{secretChange, fcChange}, nil
}

// hasPeeringType tells whether the ForeignCluster CRD has
// spec.peeringType (v0.4+); a missing CRD means Liqo 0.x is not installed.
func (c *Cluster) hasPeeringType(ctx context.Context) (bool, error) {
	crd, err := c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, kube.Liqo0xForeignClusterCRDName, metav1.GetOptions{})
	switch {
	case kube.IsNotFound(err):
		return false, fmt.Errorf("this cluster does not run Liqo 0.x (no CustomResourceDefinition %s): install Liqo 0.x, or let this tool be the consumer on a cluster prepared with `liqo-auth-tui init`",
			kube.Liqo0xForeignClusterCRDName)
	case apierrors.IsForbidden(err):
		return false, fmt.Errorf("reading CustomResourceDefinition %s: %w: use a kubeconfig that may read CRDs", kube.Liqo0xForeignClusterCRDName, err)
	case err != nil:
		return false, kube.Reach(c.Server, err)
	}
	line := kube.Liqo0xLineOfCRD(crd)
	if line == peerinfo.V02 {
		return false, errors.New("this cluster runs Liqo v0.2, whose ServiceAccount-token identities this tool does not support: upgrade Liqo to v0.3 or later")
	}
	return line == peerinfo.V04, nil
}

// foreignCluster is the ForeignCluster labelled for providerID, nil
// when none; Liqo refuses to work with two (§3.3 GetForeignClusterByID).
func (c *Cluster) foreignCluster(ctx context.Context, fcs dynamic.NamespaceableResourceInterface, providerID string) (*unstructured.Unstructured, error) {
	list, err := fcs.List(ctx, metav1.ListOptions{LabelSelector: labels.Set{ClusterIDLabel: providerID}.String()})
	if err != nil {
		return nil, fmt.Errorf("listing the ForeignClusters of %s: %w", providerID, err)
	}
	switch len(list.Items) {
	case 0:
		return nil, nil
	case 1:
		return &list.Items[0], nil
	}
	names := make([]string, 0, len(list.Items))
	for _, fc := range list.Items {
		names = append(names, fc.GetName())
	}
	return nil, fmt.Errorf("ForeignClusters %v are all labelled %s=%s and Liqo refuses to pick one: delete all but one", names, ClusterIDLabel, providerID)
}

// tokenSelector selects the token Secrets Liqo reads for providerID (§3.1).
func tokenSelector(providerID string) string {
	return labels.Set{ClusterIDLabel: providerID}.String() + "," + AuthTokenLabel
}

// checkOtherTokens refuses when another labelled Secret holds another
// token for the provider: Liqo reads the first it lists, in any namespace,
// so ours might never be sent.
func (c *Cluster) checkOtherTokens(ctx context.Context, info *peerinfo.Info) error {
	list, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: tokenSelector(info.ClusterID)})
	if apierrors.IsForbidden(err) {
		return nil // Only cluster-wide readers can tell; Liqo's own Secret is checked on write.
	}
	if err != nil {
		return fmt.Errorf("listing the token Secrets for %s: %w", info.ClusterID, err)
	}
	for _, s := range list.Items {
		if s.Namespace == c.Namespace && s.Name == RemoteTokenPrefix+info.ClusterID {
			continue
		}
		if tok, ok := s.Data[AuthTokenField]; ok && string(tok) != info.Token {
			return fmt.Errorf("Secret %s/%s also holds a token for %s and Liqo may send it instead: delete it, then apply again", s.Namespace, s.Name, info.ClusterID)
		}
	}
	return nil
}

// applyTokenSecret writes remote-token-<providerID> in the Liqo
// namespace as liqoctl's StoreInSecret does and tells whether the token changed.
func (c *Cluster) applyTokenSecret(ctx context.Context, info *peerinfo.Info) (kube.Change, bool, error) {
	name := RemoteTokenPrefix + info.ClusterID
	secrets := c.Kube.CoreV1().Secrets(c.Namespace)
	before, err := secrets.Get(ctx, name, metav1.GetOptions{})
	switch {
	case kube.IsNotFound(err):
		before = nil
	case err != nil:
		return kube.Change{Object: "Secret " + c.Namespace + "/" + name}, false, fmt.Errorf("reading Secret %s/%s: %w", c.Namespace, name, err)
	}
	secret := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, Labels: map[string]string{
			ClusterIDLabel: info.ClusterID, AuthTokenLabel: "",
		}},
		Data: map[string][]byte{AuthTokenField: []byte(info.Token)},
	}
	ch, err := kube.ServerSideApply(ctx, secrets, "Secret", secret)
	ch.Object = "Secret " + c.Namespace + "/" + name
	changed := before == nil || string(before.Data[AuthTokenField]) != info.Token
	return ch, changed, err
}

// applyForeignCluster creates or updates the ForeignCluster of the
// provider with a read-modify-write, so that fields Liqo or liqoctl own stay.
func (c *Cluster) applyForeignCluster(ctx context.Context, fcs dynamic.NamespaceableResourceInterface, existing *unstructured.Unstructured,
	info *peerinfo.Info, o PeerOptions, withPeeringType, tokenChanged bool) (kube.Change, error) {
	if existing == nil {
		name := o.Name
		if name == "" {
			name = info.ClusterName
		}
		if name == "" {
			name = info.ClusterID
		}
		fc := &unstructured.Unstructured{Object: map[string]any{}}
		fc.SetAPIVersion(ForeignClusters.GroupVersion().String())
		fc.SetKind(foreignClusterKind)
		fc.SetName(name)
		fc.SetLabels(map[string]string{kube.ManagedByLabel: kube.ManagedByValue})
		if err := setPeerSpec(fc, info, o, withPeeringType, false); err != nil {
			return kube.Change{Object: foreignClusterKind + " " + name}, err
		}
		if _, err := fcs.Create(ctx, fc, metav1.CreateOptions{FieldManager: kube.FieldManager}); err != nil {
			return kube.Change{Object: foreignClusterKind + " " + name}, fmt.Errorf("creating ForeignCluster %s: %w", name, err)
		}
		return kube.Change{Object: foreignClusterKind + " " + name, Action: kube.Created}, nil
	}
	ch := kube.Change{Object: foreignClusterKind + " " + existing.GetName(), Action: kube.Unchanged}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := fcs.Get(ctx, existing.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		desired := current.DeepCopy()
		if err := setPeerSpec(desired, info, o, withPeeringType, tokenChanged); err != nil {
			return err
		}
		if equality.Semantic.DeepEqual(current.Object, desired.Object) {
			return nil
		}
		if _, err := fcs.Update(ctx, desired, metav1.UpdateOptions{FieldManager: kube.FieldManager}); err != nil {
			return err
		}
		ch.Action = kube.Updated
		return nil
	})
	if err != nil {
		return ch, fmt.Errorf("updating ForeignCluster %s: %w", existing.GetName(), err)
	}
	return ch, nil
}

// setPeerSpec sets on fc what liqoctl peer out-of-band sets (§4),
// keeping what an existing ForeignCluster already says where liqoctl does.
func setPeerSpec(fc *unstructured.Unstructured, info *peerinfo.Info, o PeerOptions, withPeeringType, bump bool) error {
	l := fc.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	l[ClusterIDLabel] = info.ClusterID
	if bump {
		l[ReconcileLabel] = strconv.FormatInt(time.Now().UnixNano(), 10)
	}
	fc.SetLabels(l)

	spec, _, _ := unstructured.NestedMap(fc.Object, "spec")
	if spec == nil {
		spec = map[string]any{}
	}
	identity, _, _ := unstructured.NestedStringMap(spec, "clusterIdentity")
	if identity == nil {
		identity = map[string]string{}
	}
	identity["clusterID"] = info.ClusterID
	if identity["clusterName"] == "" { // immutable once set (v0.10 webhook)
		identity["clusterName"] = info.ClusterName
		if identity["clusterName"] == "" {
			identity["clusterName"] = fc.GetName()
		}
	}
	spec["clusterIdentity"] = map[string]any{"clusterID": identity["clusterID"], "clusterName": identity["clusterName"]}
	spec["foreignAuthUrl"] = info.AuthURL
	if _, ok := spec["insecureSkipTLSVerify"].(bool); !ok {
		spec["insecureSkipTLSVerify"] = true
	}
	if s, _ := spec["incomingPeeringEnabled"].(string); s == "" {
		spec["incomingPeeringEnabled"] = peeringAuto
	}
	switch s, _ := spec["outgoingPeeringEnabled"].(string); {
	case o.Peer:
		spec["outgoingPeeringEnabled"] = peeringYes
	case s == "":
		spec["outgoingPeeringEnabled"] = peeringNo
	}
	if withPeeringType {
		spec["peeringType"] = outOfBand
	}
	return unstructured.SetNestedMap(fc.Object, spec, "spec")
}
