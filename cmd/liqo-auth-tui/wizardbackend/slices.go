package wizardbackend

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// RequestResources creates the consumer's ResourceSlice for the provider
// (nothing when the same one is there) and waits, each wait within the
// step timeout, for the provider's answer and the slice's kubeconfig
// Secret (§10.1). A request CheckSliceRequest refuses writes nothing. A
// denial is an answer, not a failure: it comes back as the slice's status.
func (b *Backend) RequestResources(ctx context.Context, consumer tui.ClusterRef, req tui.SliceRequest, sink handshake.Sink) (*tui.SliceInfo, error) {
	if err := b.CheckSliceRequest(req); err != nil {
		return nil, err
	}
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainScoped(handshake.Local, err)
	}
	o := flows.SliceOptions{Wait: true, StepTimeout: b.stepTimeout, Engine: b.engine}
	if req.Provider != nil {
		// Both clusters at hand: serve the provider's side too when
		// nothing does, as Authenticate does.
		if o.Provider, err = b.connect(*req.Provider); err != nil {
			return nil, explainScoped(handshake.Remote, err)
		}
	}
	st, err := flows.CreateResourceSlice(ctx, c, artifact.SliceRequest{Name: req.Name, ProviderID: req.ProviderID, Class: req.Class,
		CPU: req.CPU, Memory: req.Memory, Pods: req.Pods}, o, sink)
	if st == nil {
		return nil, explainErr(err)
	}
	// The provider answered: a denial is shown as the slice's status.
	return st, nil
}

// ResourceSlices lists the consumer's ResourceSlices with providerID.
func (b *Backend) ResourceSlices(ctx context.Context, consumer tui.ClusterRef, providerID string) ([]tui.SliceInfo, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return nil, explainErr(err)
	}
	list, err := flows.ListResourceSlices(ctx, c, providerID)
	if err != nil {
		return nil, explainErr(flows.Reached(c, err)) // names the server and what failed on the way
	}
	return list, nil
}

// SliceAnswerer says who answers the consumer's ResourceSlices on
// providerID (flows.SliceAnswerer).
func (b *Backend) SliceAnswerer(ctx context.Context, consumer tui.ClusterRef, providerID string, provider *tui.ClusterRef) (handshake.SliceAnswer, error) {
	c, err := b.connect(consumer)
	if err != nil {
		return handshake.SliceAnswer{}, explainScoped(handshake.Local, err)
	}
	var p *flows.Cluster
	if provider != nil {
		if p, err = b.connect(*provider); err != nil {
			return handshake.SliceAnswer{}, explainScoped(handshake.Remote, err)
		}
	}
	a, err := flows.SliceAnswerer(ctx, c, providerID, p, b.engine)
	if err != nil {
		return a, explainErr(err)
	}
	return a, nil
}

// ServeSlices serves the provider while ctx lives (flows.ServeSlices).
func (b *Backend) ServeSlices(ctx context.Context, provider tui.ClusterRef, consumerID string, report func(tui.ProviderSlices)) error {
	c, err := b.connect(provider)
	if err != nil {
		return explainErr(err)
	}
	err = flows.ServeSlices(ctx, c, consumerID, b.engine, report)
	if err != nil {
		return explainErr(err)
	}
	return nil
}
