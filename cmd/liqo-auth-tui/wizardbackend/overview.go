package wizardbackend

import (
	"context"
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/peerings"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

// The overview's backend (tui/overview.go): peerings.Read and
// peerings.Watch's rows, which the wizard shows as they are, and the
// actions on a peering.

// overviewOf connects ref and, when given, remote.
func (b *Backend) overviewOf(ref tui.ClusterRef, remote *tui.ClusterRef) (*flows.Cluster, peerings.Options, error) {
	var o peerings.Options
	c, err := b.connect(ref)
	if err != nil {
		return nil, o, explainScoped(handshake.Local, err)
	}
	if remote != nil {
		if o.Remote, err = b.connect(*remote); err != nil {
			return nil, o, explainScoped(handshake.Remote, err)
		}
	}
	return c, o, nil
}

// Overview lists every peering of ref (with remote: those between them).
func (b *Backend) Overview(ctx context.Context, ref tui.ClusterRef, remote *tui.ClusterRef) ([]tui.OverviewRow, error) {
	c, o, err := b.overviewOf(ref, remote)
	if err != nil {
		return nil, err
	}
	rows, err := peerings.Read(ctx, c, o)
	if err != nil {
		return nil, explainErr(err)
	}
	return rows, nil
}

// WatchOverview passes peerings.Watch's overviews on, the latest only,
// until ctx ends; what each read is kept for Diagnose meanwhile.
func (b *Backend) WatchOverview(ctx context.Context, ref tui.ClusterRef, remote *tui.ClusterRef) (<-chan []tui.OverviewRow, error) {
	c, o, err := b.overviewOf(ref, remote)
	if err != nil {
		return nil, err
	}
	key, watch := b.snapshots.watch(ref, remote)
	o.OnSnapshot = func(s *peerings.Snapshot) { b.snapshots.keep(key, watch, s) }
	in, err := peerings.Watch(ctx, c, o)
	if err != nil {
		b.snapshots.drop(key, watch)
		return nil, explainErr(err)
	}
	out := make(chan []tui.OverviewRow, 1)
	go func() {
		defer close(out)
		defer b.snapshots.drop(key, watch)
		for rows := range in {
			// The only sender: once the stale overview is dropped, the
			// send cannot block.
			select {
			case <-out:
			default:
			}
			out <- rows
		}
	}()
	return out, nil
}

// MoveQuestion is liqoctl's question before the move.
func (b *Backend) MoveQuestion(move tui.TenantMove, consumerID string) string {
	return flows.TenantMoveQuestion(string(move), consumerID)
}

// MoveTenant cordons, uncordons, drains or activates consumerID's Tenant:
// the wizard asked already.
func (b *Backend) MoveTenant(ctx context.Context, provider tui.ClusterRef, consumerID string, move tui.TenantMove, sink handshake.Sink) error {
	c, err := b.connect(provider)
	if err != nil {
		return explainErr(err)
	}
	yes := flows.ConfirmOptions{Yes: true}
	switch move {
	case tui.MoveCordon:
		err = flows.CordonTenant(ctx, c, consumerID, yes, sink)
	case tui.MoveUncordon:
		err = flows.UncordonTenant(ctx, c, consumerID, sink)
	case tui.MoveDrain:
		err = flows.DrainTenant(ctx, c, consumerID, yes, sink)
	case tui.MoveActivate:
		err = flows.ActivateTenant(ctx, c, consumerID, sink)
	default:
		return fmt.Errorf("unknown Tenant change %q: cordon, uncordon, drain or activate", move)
	}
	return explainErr(err)
}

// DeleteResourceSlice deletes the consumer's slice, as `delete resourceslice`.
func (b *Backend) DeleteResourceSlice(ctx context.Context, consumer tui.ClusterRef, name, providerID string) error {
	c, err := b.connect(consumer)
	if err != nil {
		return explainErr(err)
	}
	return explainErr(flows.DeleteResourceSlice(ctx, c, name, providerID))
}

// Unauthenticate unauthenticates the pair, one-sided when only one side is
// given (v1 or Liqo 0.x); what stays on the other side comes back.
func (b *Backend) Unauthenticate(ctx context.Context, req tui.UnauthRequest, sink handshake.Sink) ([]string, error) {
	var consumer, provider *flows.Cluster
	var err error
	if req.Consumer != nil {
		if consumer, err = b.connect(*req.Consumer); err != nil {
			return nil, explainErr(err)
		}
	}
	if req.Provider != nil {
		if provider, err = b.connect(*req.Provider); err != nil {
			return nil, explainErr(err)
		}
	}
	if req.Route == handshake.RouteLiqo0x {
		res, err := liqo0x.Unauthenticate(ctx, liqo0x.UnauthOptions{Consumer: consumer, Provider: provider,
			ConsumerID: req.ConsumerID, ProviderID: req.ProviderID, Yes: true}, sink)
		if err != nil {
			return nil, explainErr(err)
		}
		return res.Left, nil
	}
	res, err := flows.Unauthenticate(ctx, flows.UnauthenticateOptions{Consumer: consumer, Provider: provider,
		ConsumerID: req.ConsumerID, ProviderID: req.ProviderID, StepTimeout: b.stepTimeout}, sink)
	if err != nil {
		return nil, explainErr(err)
	}
	var left []string
	for _, l := range res.Leftovers {
		left = append(left, fmt.Sprintf("left on the %s: %s; remove it there with: %s", l.Role, l.What, l.Command))
	}
	return left, nil
}
