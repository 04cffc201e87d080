package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/cache"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// BenchmarkTenantReconcile measures the provider's part of a handshake:
// from applying a Tenant (nonce ready) to seeing its filled status,
// certificate issuance by the cluster's CA included. The status is watched
// by an informer started beforehand, so that a wait's own list does not
// count.
func BenchmarkTenantReconcile(b *testing.B) {
	p := providerCluster(b)
	startManager(b, p, Options{Provider: true})
	filled := watchFilledTenants(b, p)
	handshake := func(id string, timed bool) {
		cs := newConsumer(b, id)
		ns, nonce := cs.prepareNonce(b, p)
		tn := cs.tenant(b, ns, nonce)
		done := filled(cs.id)
		if timed {
			b.StartTimer()
			defer b.StopTimer()
		}
		_, _, err := p.ApplyTenant(labtest.Context(b), tn)
		require.NoError(b, err)
		<-done
	}
	// The first handshake on a fresh lab also pays for the API server's
	// and the CA's first use of each resource (~2 s): not what is measured.
	handshake(fmt.Sprintf("bench-warm-%d", b.N), false)
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		handshake(fmt.Sprintf("bench-%d-%d", b.N, i), true)
	}
}

// watchFilledTenants returns a function that, given a Tenant name, returns
// a channel closed once that Tenant has a filled status.
func watchFilledTenants(b *testing.B, p *kube.Cluster) func(name string) <-chan struct{} {
	var mu sync.Mutex
	waiting := map[string]chan struct{}{}
	tenants := p.Liqo.Tenants("")
	inf := cache.NewSharedIndexInformer(kube.ListWatch(tenants.List, tenants.Watch, all), &authv1beta1.Tenant{}, 0, nil)
	check := func(obj any) {
		t, ok := obj.(*authv1beta1.Tenant)
		if !ok || !statusFilled(t) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if ch := waiting[t.Name]; ch != nil {
			close(ch)
			delete(waiting, t.Name)
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: check, UpdateFunc: func(_, cur any) { check(cur) }})
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go inf.RunWithContext(ctx)
	require.True(b, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	return func(name string) <-chan struct{} {
		ch := make(chan struct{})
		mu.Lock()
		waiting[name] = ch
		mu.Unlock()
		return ch
	}
}
