package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The informer showing a write of ours does not queue the object again;
// anybody else's change after it does.
func TestOwnWriteEchoIsNotQueued(t *testing.T) {
	m := newMutationCache(cache.NewStore(cache.MetaNamespaceKeyFunc), false, true)
	var queued []string
	h := m.handler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, cur any) {
		queued = append(queued, cur.(*authv1beta1.Tenant).ResourceVersion)
	}})
	tenant := func(rv string) *authv1beta1.Tenant {
		return &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: "liqo-tenant-c1", ResourceVersion: rv}}
	}

	m.wrote(tenant("5"))
	h.OnUpdate(tenant("4"), tenant("5")) // our status write
	h.OnUpdate(tenant("5"), tenant("6")) // somebody else's
	m.wrote(tenant("7"))
	h.OnUpdate(tenant("6"), tenant("8")) // another change came first: ours is still pending
	h.OnUpdate(tenant("8"), tenant("7"))
	assert.Equal(t, []string{"6", "8"}, queued)
}

// A write the informer already showed (its watch event beat the response)
// is not remembered: no copy waits for a TTL, no echo is awaited.
func TestOwnWriteAlreadySeenIsNotKept(t *testing.T) {
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	m := newMutationCache(store, false, true)
	tenant := func(rv string) *authv1beta1.Tenant {
		return &authv1beta1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: "liqo-tenant-c1", ResourceVersion: rv}}
	}
	assert.NoError(t, store.Add(tenant("5")))
	m.wrote(tenant("5"))
	assert.Empty(t, m.own.Keys(), "the echo went by already")

	m.wrote(tenant("6")) // the informer has not shown it yet
	assert.Len(t, m.own.Keys(), 1)
	got, _, err := m.GetByKey("liqo-tenant-c1/c1")
	assert.NoError(t, err)
	assert.Equal(t, "6", got.(*authv1beta1.Tenant).ResourceVersion, "the newer write is read back")

	certs := newMutationCache(cache.NewStore(cache.MetaNamespaceKeyFunc), true, false)
	certs.wrote(tenant("1"))
	assert.False(t, certs.echo(tenant("1")), "without echoes held back, nothing is")
}
