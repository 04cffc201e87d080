package kube

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/assets"
	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// InitOptions say how to prepare a cluster without Liqo.
type InitOptions struct {
	ClusterID string             // "" = keep the existing one or generate one
	KeyType   authcrypto.KeyType // for a new key pair; "" = Ed25519
}

// InitResult reports what Init found and did.
type InitResult struct {
	ClusterID     string
	LiqoInstalled bool
	Changes       []Change
}

// Init makes a cluster without Liqo ready for the handshake, idempotently:
// the Liqo namespace, the cluster-ID ConfigMap, the authentication-keys
// Secret, the authentication.liqo.io CRDs, Liqo's NamespaceMap CRD (a Liqo
// consumer's crd-replicator watches NamespaceMaps on its providers), Liqo's
// two ClusterRoles for consumers and its peering-user roles (the
// ClusterRole liqo-peering-user-tenant-ns, the Role liqo-peering-user-liqo-ns
// in the Liqo namespace). Existing identity (ID and keys) is never changed. On a
// cluster where Liqo is installed it writes nothing.
func (c *Cluster) Init(ctx context.Context, o InitOptions) (*InitResult, error) {
	if o.ClusterID != "" {
		if err := authcrypto.ValidateClusterID(o.ClusterID); err != nil {
			return nil, err
		}
	}
	keyType := o.KeyType
	if keyType == "" {
		keyType = authcrypto.KeyEd25519
	}
	liqo, err := c.LiqoInstalled(ctx)
	if err != nil {
		return nil, err
	}
	res := &InitResult{LiqoInstalled: liqo}
	existingID, err := c.ClusterID(ctx)
	if err != nil && !IsNotFoundOrNoID(err) {
		return nil, err
	}
	if liqo {
		res.ClusterID = existingID
		return res, nil
	}
	if existingID != "" && o.ClusterID != "" && existingID != o.ClusterID {
		return nil, fmt.Errorf("this cluster already has cluster ID %q and a cluster ID never changes: drop --cluster-id or pass --cluster-id %s", existingID, existingID)
	}
	// Decode the embedded manifests before writing anything.
	crds, roles, err := embeddedManifests()
	if err != nil {
		return nil, err
	}
	peeringClusterRole, peeringRole, err := peeringUserManifests(c.Namespace)
	if err != nil {
		return nil, err
	}

	record := func(ch Change, err error) error {
		if err == nil {
			res.Changes = append(res.Changes, ch)
		}
		return err
	}
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: c.Namespace}}
	if err := record(ServerSideApply(ctx, c.Kube.CoreV1().Namespaces(), "Namespace", ns)); err != nil {
		return nil, err
	}
	res.ClusterID = existingID
	if existingID == "" {
		res.ClusterID = o.ClusterID
		if res.ClusterID == "" {
			res.ClusterID = uuid.NewString() // what Liqo's Helm chart generates
		}
		if err := record(c.createClusterIDConfigMap(ctx, res.ClusterID)); err != nil {
			return nil, err
		}
	} else {
		res.Changes = append(res.Changes, Change{Object: "ConfigMap " + ClusterIDConfigMapName, Action: Unchanged})
	}
	if err := record(c.ensureKeys(ctx, keyType)); err != nil {
		return nil, err
	}
	for _, crd := range crds {
		if err := record(ServerSideApply(ctx, c.APIExt.ApiextensionsV1().CustomResourceDefinitions(), "CustomResourceDefinition", crd)); err != nil {
			return nil, err
		}
	}
	for _, role := range append(roles, peeringClusterRole) {
		if err := record(ServerSideApply(ctx, c.Kube.RbacV1().ClusterRoles(), "ClusterRole", role)); err != nil {
			return nil, err
		}
	}
	if err := record(ServerSideApply(ctx, c.Kube.RbacV1().Roles(c.Namespace), "Role", peeringRole)); err != nil {
		return nil, err
	}
	var established time.Time
	for _, crd := range crds {
		at, err := c.waitCRDEstablished(ctx, crd.Name)
		if err != nil {
			return nil, err
		}
		if at.After(established) {
			established = at
		}
	}
	return res, waitCreatesServed(ctx, established)
}

// createDelayAfterEstablished is how long after a CRD is established the
// API server holds every create of its objects: apiextensions-apiserver
// sleeps 2 s on a create while its CRD was established less than 2 s ago
// (for HA API servers that may not have seen it yet), plus a second for
// the condition's time, which is kept to the second.
const createDelayAfterEstablished = 3 * time.Second

// waitCreatesServed waits, after an init that just installed the CRDs,
// until a create is no longer held by the API server: the first handshake
// after init would otherwise pay 2 s on applying its Tenant. The server
// says nothing when the hold ends, so this is a timer on the CRD's own
// Established time (at most createDelayAfterEstablished, whatever the
// clocks say); an init that found its CRDs installed long ago waits nothing.
func waitCreatesServed(ctx context.Context, established time.Time) error {
	wait := time.Until(established.Add(createDelayAfterEstablished))
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(min(wait, createDelayAfterEstablished))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Cluster) createClusterIDConfigMap(ctx context.Context, id string) (Change, error) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ClusterIDConfigMapName, Namespace: c.Namespace, Labels: map[string]string{
			"app.kubernetes.io/name":      "clusterid-configmap",
			"app.kubernetes.io/component": "clusterid-configmap",
			PartOfLabel:                   PartOfValue,
			ManagedByLabel:                ManagedByValue,
		}},
		Data: map[string]string{ClusterIDKey: id},
	}
	ch := Change{Object: "ConfigMap " + cm.Name, Action: Created}
	if _, err := c.Kube.CoreV1().ConfigMaps(c.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return ch, fmt.Errorf("ConfigMap %s/%s exists without the label %s: label it or delete it", c.Namespace, cm.Name, ClusterIDSelector)
		}
		return ch, fmt.Errorf("creating the cluster-ID ConfigMap: %w", err)
	}
	return ch, nil
}

// ensureKeys creates the cluster key pair once; like Liqo it never modifies
// an existing Secret (a new key would break every existing peering).
func (c *Cluster) ensureKeys(ctx context.Context, keyType authcrypto.KeyType) (Change, error) {
	ch := Change{Object: "Secret " + AuthKeysSecretName, Action: Unchanged}
	_, err := c.Kube.CoreV1().Secrets(c.Namespace).Get(ctx, AuthKeysSecretName, metav1.GetOptions{})
	if err == nil {
		return ch, nil
	}
	if !IsNotFound(err) {
		return ch, fmt.Errorf("reading secret %s/%s: %w", c.Namespace, AuthKeysSecretName, err)
	}
	key, err := authcrypto.GenerateKey(keyType)
	if err != nil {
		return ch, err
	}
	secret, err := NewKeysSecret(c.Namespace, key)
	if err != nil {
		return ch, err
	}
	if _, err := c.Kube.CoreV1().Secrets(c.Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		if apierrors.IsAlreadyExists(err) { // created concurrently: keep theirs
			return ch, nil
		}
		return ch, fmt.Errorf("creating secret %s/%s: %w", c.Namespace, AuthKeysSecretName, err)
	}
	ch.Action = Created
	return ch, nil
}

func embeddedManifests() ([]*apiextv1.CustomResourceDefinition, []*rbacv1.ClusterRole, error) {
	crdDocs, err := assets.CRDManifests()
	if err != nil {
		return nil, nil, err
	}
	replicated, err := assets.ReplicatedCRDManifests()
	if err != nil {
		return nil, nil, err
	}
	crdDocs = append(crdDocs, replicated...)
	roleDocs, err := assets.ClusterRoleManifests()
	if err != nil {
		return nil, nil, err
	}
	crds := make([]*apiextv1.CustomResourceDefinition, len(crdDocs))
	for i, doc := range crdDocs {
		crds[i] = &apiextv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(doc, crds[i]); err != nil {
			return nil, nil, fmt.Errorf("embedded CRD %d: %w", i, err)
		}
	}
	roles := make([]*rbacv1.ClusterRole, len(roleDocs))
	for i, doc := range roleDocs {
		roles[i] = &rbacv1.ClusterRole{}
		if err := yaml.UnmarshalStrict(doc, roles[i]); err != nil {
			return nil, nil, fmt.Errorf("embedded ClusterRole %d: %w", i, err)
		}
	}
	return crds, roles, nil
}

// waitCRDEstablished waits until the CRD is established and returns when
// it became so.
func (c *Cluster) waitCRDEstablished(ctx context.Context, name string) (time.Time, error) {
	crds := c.APIExt.ApiextensionsV1().CustomResourceDefinitions()
	var at time.Time
	_, err := WaitFor(ctx, ListWatch(crds.List, crds.Watch, ByName(name)), "CRD "+name+" to be established",
		func(crd *apiextv1.CustomResourceDefinition) (bool, error) {
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
					at = cond.LastTransitionTime.Time
					return true, nil
				}
			}
			return false, nil
		})
	return at, err
}

// LiqoInstalled tells whether real Liqo is installed: its core CRDs exist
// (this tool installs only the authentication ones), or the cluster-ID
// ConfigMap was made by Liqo's Helm chart.
func (c *Cluster) LiqoInstalled(ctx context.Context) (bool, error) {
	_, err := c.APIExt.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, LiqoForeignClusterCRDName, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err):
		return false, nil
	case !apierrors.IsForbidden(err):
		return false, Reach(c.Server, err)
	}
	cm, err := c.ClusterIDConfigMap(ctx)
	if err != nil {
		return false, nil
	}
	return cm.Labels[ManagedByLabel] == "Helm", nil
}
