package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// Which authentication runs, v1's handshake or Liqo 0.x's token
// authentication (a handshake.Route), is decided here, one function per
// question; the commands and the wizard only read the answer.

// AuthenticationRoute is how a consumer authenticates with a provider that
// runs provider: Liqo 0.x's token authentication when it runs Liqo 0.x,
// else the v1 handshake. The commands reach it through
// AuthenticationRouteTo, the wizard through the probe of each cluster.
func AuthenticationRoute(provider LiqoRelease) handshake.Route {
	if RunsLiqo0x(provider) {
		return handshake.RouteLiqo0x
	}
	return handshake.RouteV1
}

// AuthenticationRouteTo is AuthenticationRoute on what provider runs.
func AuthenticationRouteTo(ctx context.Context, provider *Cluster) (handshake.Route, error) {
	r, err := provider.DetectRelease(ctx)
	if err != nil {
		return "", err
	}
	return AuthenticationRoute(r), nil
}

// UnauthenticationRoute is how the peering of consumer and provider is
// undone. Either may be nil when that cluster is gone (one-sided),
// remoteID then naming it. Both at hand: Liqo 0.x's when either runs it.
// The provider alone: when it runs Liqo 0.x. The consumer alone: when
// what it holds for remoteID came from Liqo 0.x (consumerHoldsLiqo0x). A
// failure is scoped to the cluster it is about.
func UnauthenticationRoute(ctx context.Context, consumer, provider *Cluster, remoteID string) (handshake.Route, error) {
	switch {
	case provider == nil:
		held, err := consumerHoldsLiqo0x(ctx, consumer, remoteID)
		if err != nil {
			return "", Scoped(handshake.Local, err)
		}
		return routeIf(held), nil
	case consumer == nil:
		runs, err := clusterRunsLiqo0x(ctx, provider)
		if err != nil {
			return "", Scoped(handshake.Remote, err)
		}
		return routeIf(runs), nil
	}
	for _, side := range []struct {
		scope handshake.Scope
		c     *Cluster
	}{{handshake.Remote, provider}, {handshake.Local, consumer}} {
		runsLiqo0x, err := clusterRunsLiqo0x(ctx, side.c)
		if err != nil {
			return "", Scoped(side.scope, err)
		}
		if runsLiqo0x {
			return handshake.RouteLiqo0x, nil
		}
	}
	return handshake.RouteV1, nil
}

func routeIf(isLiqo0x bool) handshake.Route {
	if isLiqo0x {
		return handshake.RouteLiqo0x
	}
	return handshake.RouteV1
}

// clusterRunsLiqo0x tells whether c runs Liqo 0.x.
func clusterRunsLiqo0x(ctx context.Context, c *Cluster) (bool, error) {
	r, err := c.DetectRelease(ctx)
	if err != nil {
		return false, err
	}
	return RunsLiqo0x(r), nil
}

// consumerHoldsLiqo0x tells whether what the consumer holds for providerID
// came from Liqo 0.x: the cluster runs it, or its kubeconfig Secret is the
// one this tool wrote as a 0.x consumer, or, without a v1 Identity, Liqo
// 0.x left something for that provider (a pending key, a token). Anything
// else is v1's, a handshake that never completed included.
func consumerHoldsLiqo0x(ctx context.Context, consumer *Cluster, providerID string) (bool, error) {
	if runsLiqo0x, err := clusterRunsLiqo0x(ctx, consumer); err != nil || runsLiqo0x {
		return runsLiqo0x, err
	}
	secret, err := access.KubeconfigSecretFor(ctx, consumer, providerID)
	switch {
	case err == nil:
		return secret.Labels[liqo0x.ClientLabel] == "true", nil
	case !kube.IsNotFound(err):
		return false, err
	}
	_, err = consumer.ControlPlaneIdentityFor(ctx, providerID)
	switch {
	case err == nil:
		return false, nil
	case !kube.IsNotFound(err):
		return false, err
	}
	remove, kept, err := liqo0x.On(consumer).ConsumerLeftovers(ctx, providerID)
	return len(remove)+len(kept) > 0, err
}

// ScopedError is an error about one of the two clusters: "(remote) ...".
type ScopedError struct {
	Scope handshake.Scope
	Err   error
}

func (e *ScopedError) Error() string { return e.Scope.Prefix() + e.Err.Error() }
func (e *ScopedError) Unwrap() error { return e.Err }

// Scoped names the cluster err is about.
func Scoped(scope handshake.Scope, err error) error { return &ScopedError{Scope: scope, Err: err} }
