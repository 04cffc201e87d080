package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Cached Tenants with the same CA share one copy of it; another CA is kept
// as is; managed fields go as for every informer.
func TestSharedCA(t *testing.T) {
	tenant := func(ca string) *authv1beta1.Tenant {
		return &authv1beta1.Tenant{
			ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
			Status:     authv1beta1.TenantStatus{AuthParams: &authv1beta1.AuthParams{CA: []byte(ca)}},
		}
	}
	s := &sharedCA{}
	transformed := func(ca string) *authv1beta1.Tenant {
		obj, err := s.transform(tenant(ca))
		require.NoError(t, err)
		return obj.(*authv1beta1.Tenant)
	}
	a, b := transformed("provider CA"), transformed("provider CA")
	assert.Same(t, &a.Status.AuthParams.CA[0], &b.Status.AuthParams.CA[0], "one copy for both")
	assert.Nil(t, b.ManagedFields)
	other := transformed("another CA")
	assert.Equal(t, "another CA", string(other.Status.AuthParams.CA))
	assert.Equal(t, "provider CA", string(a.Status.AuthParams.CA), "a shared copy is never written")

	pending, err := s.transform(&authv1beta1.Tenant{})
	require.NoError(t, err)
	assert.Nil(t, pending.(*authv1beta1.Tenant).Status.AuthParams, "a Tenant without status is left alone")
}
