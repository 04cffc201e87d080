package wizardbackend

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// Advertised tells what the consumer will be told to reach the provider
// at, with the wizard's overrides (--api-server-override, earlier edits,
// what an earlier run set on the consumer's Tenant).
// On real Liqo the overrides cannot apply: flows gives its own
// advertisement, Fixed, with how to change it there.
func (b *Backend) Advertised(ctx context.Context, provider tui.ClusterRef, consumerID string) (*tui.Advertisement, error) {
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	adv, err := flows.AdvertisedOrFixed(ctx, c, consumerID, b.engine)
	if err != nil {
		return nil, explainErr(err)
	}
	return &adv, nil
}

// SetAdvertised makes the provider advertise edit to consumerID: checked
// first (address, CA file, engine), kept for the flows that follow, and,
// when the provider already has the consumer's Tenant, put on it at once
// (flows.Readvertise) so the Identity generated next and its renewals
// carry it.
func (b *Backend) SetAdvertised(ctx context.Context, provider tui.ClusterRef, consumerID string, edit tui.AdvertiseEdit, sink handshake.Sink) (*tui.Advertisement, error) {
	o, err := b.editedEngine(edit)
	if err != nil {
		return nil, err
	}
	c, err := b.connect(provider)
	if err != nil {
		return nil, explainErr(err)
	}
	adv, err := flows.Advertised(ctx, c, o)
	if err != nil {
		return nil, explainErr(err)
	}
	popts := flows.ProviderOptions{Provider: c, ConsumerID: consumerID, StepTimeout: b.stepTimeout, Engine: o}
	if err := flows.ReadvertiseIfAccepted(ctx, popts, sink); err != nil {
		return nil, explainErr(err)
	}
	b.engine = o
	return &adv, nil
}

// editedEngine is the backend's engine options with edit's overrides, each
// checked: one line says what is wrong.
func (b *Backend) editedEngine(edit tui.AdvertiseEdit) (flows.EngineOptions, error) {
	o := b.engine
	o.APIServerOverride, o.CAOverride, o.TrustedCA = "", nil, edit.TrustedCA
	if edit.APIServer != "" {
		server, err := flows.NormalizeAPIServer(edit.APIServer)
		if err != nil {
			return o, err
		}
		o.APIServerOverride = server
	}
	if edit.CAFile != "" {
		ca, err := flows.ReadCABundle(edit.CAFile)
		if err != nil {
			return o, err
		}
		o.CAOverride = ca
	}
	return o, nil
}
