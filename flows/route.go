package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// Which authentication a command runs, v1's handshake or Liqo 0.x's token
// authentication, is decided here, from what the clusters run.

// ClusterRunsLiqo0x tells whether c runs Liqo 0.x.
func ClusterRunsLiqo0x(ctx context.Context, c *Cluster) (bool, error) {
	r, err := c.DetectRelease(ctx)
	if err != nil {
		return false, err
	}
	return RunsLiqo0x(r), nil
}

// PairRunsLiqo0x tells whether unauthenticating this pair is Liqo 0.x's:
// either cluster runs it. A failure is scoped to the cluster it is about.
func PairRunsLiqo0x(ctx context.Context, consumer, provider *Cluster) (bool, error) {
	for _, side := range []struct {
		scope handshake.Scope
		c     *Cluster
	}{{handshake.Remote, provider}, {handshake.Local, consumer}} {
		runsLiqo0x, err := ClusterRunsLiqo0x(ctx, side.c)
		if err != nil {
			return false, Scoped(side.scope, err)
		}
		if runsLiqo0x {
			return true, nil
		}
	}
	return false, nil
}

// ConsumerHoldsLiqo0x tells whether what the consumer holds for providerID
// came from Liqo 0.x: the cluster runs it, or its kubeconfig Secret is the
// one this tool wrote as a 0.x consumer, or, without a v1 Identity, Liqo
// 0.x left something for that provider (a pending key, a token). Anything
// else is v1's, a handshake that never completed included.
func ConsumerHoldsLiqo0x(ctx context.Context, consumer *Cluster, providerID string) (bool, error) {
	if runsLiqo0x, err := ClusterRunsLiqo0x(ctx, consumer); err != nil || runsLiqo0x {
		return runsLiqo0x, err
	}
	secret, err := kubeconfigSecretFor(ctx, consumer, providerID)
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
