package controller

import (
	"bytes"
	"sync"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// sharedCA is the Tenant informer's transform: besides dropping managed
// fields and sharing repeated strings, it keeps one copy of the CA that
// every accepted Tenant's status carries (the provider's own, 1–2 KB)
// instead of one per cached Tenant.
// Cached objects are never changed in place (readers copy them first), so
// they may share those bytes.
type sharedCA struct {
	mu   sync.Mutex
	last []byte
}

func (s *sharedCA) transform(obj any) (any, error) {
	obj, err := stripManagedFields(obj)
	if err != nil {
		return obj, err
	}
	t, ok := obj.(*authv1beta1.Tenant)
	if !ok {
		return obj, nil
	}
	// Strings repeated across objects: the cluster ID is in the labels, the
	// tenant namespace is the namespace, the API server the same for all.
	t.Spec.ClusterID = intern(t.Spec.ClusterID)
	t.Status.TenantNamespace = intern(t.Status.TenantNamespace)
	for i, f := range t.Finalizers {
		t.Finalizers[i] = intern(f)
	}
	if t.Status.AuthParams == nil || len(t.Status.AuthParams.CA) == 0 {
		return obj, nil
	}
	t.Status.AuthParams.APIServer = intern(t.Status.AuthParams.APIServer)
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes.Equal(s.last, t.Status.AuthParams.CA) {
		t.Status.AuthParams.CA = s.last
	} else {
		s.last = t.Status.AuthParams.CA
	}
	return obj, nil
}
