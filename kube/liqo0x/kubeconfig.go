package liqo0x

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// The kubeconfig Secret of an identity this tool obtained from a 0.x
// provider is labelled liqo.io/remote-cluster-id=<provider> and ClientLabel,
// never liqo.io/identity-type: the v1 machinery (Liqo's and this tool's
// controller: replicator, renewal) selects kubeconfig Secrets by that label
// and would reach a 0.x API server for ResourceSlices and Renews it does not
// serve. Liqo 0.x's own identity Secrets (liqo-identity-*, §3.5) carry no
// liqo.io/ label either. Versions before this one wrote identity-type too:
// KubeconfigSecret still finds those, MigrateKubeconfigSecret drops the
// label, and the v1 replicator ignores any Secret carrying ClientLabel.

// kubeconfigSelector selects this tool's 0.x kubeconfig Secret for providerID.
func kubeconfigSelector(providerID string) string {
	sel := labels.Set{kube.RemoteClusterIDLabel: providerID}.AsSelector()
	req, _ := labels.NewRequirement(ClientLabel, selection.Exists, nil) // a valid key: cannot fail
	return sel.Add(*req).String()
}

// IsClientSecret tells whether s is a Secret this tool wrote as a 0.x
// consumer (its kubeconfig or its pending request).
func IsClientSecret(s metav1.Object) bool {
	_, ok := s.GetLabels()[ClientLabel]
	return ok
}

// KubeconfigSecret finds, cluster-wide, the kubeconfig Secret of the
// identity this tool obtained from the 0.x provider providerID, whatever
// version of the tool wrote it. NotFound when there is none.
func (c *Cluster) KubeconfigSecret(ctx context.Context, providerID string) (*corev1.Secret, error) {
	list, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: kubeconfigSelector(providerID)})
	if err != nil {
		return nil, fmt.Errorf("listing the Secrets labelled %s: %w", kubeconfigSelector(providerID), err)
	}
	var found []corev1.Secret
	for _, s := range list.Items {
		if len(s.Data[kube.KubeconfigField]) > 0 {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, apierrors.NewNotFound(corev1.Resource("secrets"), kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID)))
	case 1:
		return &found[0], nil
	}
	return nil, fmt.Errorf("found %d Secrets labelled %s holding a kubeconfig: keep only one", len(found), kubeconfigSelector(providerID))
}

// MigrateKubeconfigSecret drops liqo.io/identity-type from a 0.x kubeconfig
// Secret written by an earlier version of this tool, so that no v1
// component selects it (Unchanged when it has not the label).
func (c *Cluster) MigrateKubeconfigSecret(ctx context.Context, s *corev1.Secret) (kube.Change, error) {
	change := kube.Change{Object: "Secret " + s.Namespace + "/" + s.Name, Action: kube.Unchanged}
	if _, ok := s.Labels[kube.IdentityTypeLabel]; !ok || !IsClientSecret(s) {
		return change, nil
	}
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, kube.IdentityTypeLabel)
	if _, err := c.Kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: kube.FieldManager}); err != nil {
		return change, fmt.Errorf("removing label %s from %s: %w", kube.IdentityTypeLabel, change.Object, err)
	}
	delete(s.Labels, kube.IdentityTypeLabel)
	change.Action = kube.Updated
	return change, nil
}
