package flows

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// AdvertisedUnreachableError is a provider's advertised API server that
// does not answer from this machine: one line with what failed and what to
// do.
type AdvertisedUnreachableError struct {
	Reach *kube.ReachError
}

func (e *AdvertisedUnreachableError) Error() string {
	via := ""
	if e.Reach.Proxy != "" {
		via = " through the proxy " + e.Reach.Proxy
	}
	return fmt.Sprintf("the provider's advertised API server %s does not answer from this machine%s: %s: %s "+
		"(ask the provider's admin to advertise an address consumers reach: --api-server-override, or e on the wizard's advertise screen)",
		e.Reach.Server, via, e.Reach.Class, rootMessage(e.Reach))
}

func (e *AdvertisedUnreachableError) Unwrap() error { return e.Reach }

// rootMessage is the ReachError's cause without its own "cannot use" prefix.
func rootMessage(r *kube.ReachError) string {
	msg := r.Error()
	if i := strings.LastIndex(msg, string(r.Class)+": "); i >= 0 {
		msg = msg[i+len(r.Class)+2:]
	}
	return msg
}

// AdvertisedUnreachable turns the failure to reach a provider's advertised
// API server (a *kube.ReachError, as from verify) into the one line that
// says so; other errors come back unchanged.
func AdvertisedUnreachable(err error) error {
	var reach *kube.ReachError
	if !errors.As(err, &reach) || reach.Class == kube.FailureUnauthorized || reach.Class == kube.FailureForbidden {
		return err
	}
	return &AdvertisedUnreachableError{Reach: reach}
}

// CheckAdvertisedReachable dials the API server of authParams from this
// machine (kube.CheckAdvertisedAPIServer): nil when it answers, else an
// *AdvertisedUnreachableError.
func CheckAdvertisedReachable(ctx context.Context, p authv1beta1.AuthParams) error {
	if p.AWSConfig != nil {
		return nil // EKS: reached through AWS credentials, not checked here
	}
	return AdvertisedUnreachable(kube.CheckAdvertisedAPIServer(ctx, p.APIServer, p.CA, p.ProxyURL))
}

// warnIfUnreachable reports, as a Warning progress event, an Identity whose
// advertised API server does not answer from this machine. It does not
// fail: the consumer cluster may reach what this machine cannot.
func warnIfUnreachable(ctx context.Context, p authv1beta1.AuthParams, sink handshake.Sink, scope handshake.Scope) {
	err := CheckAdvertisedReachable(ctx, p)
	if err == nil || sink == nil {
		return
	}
	sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Warning: true, Reason: ReasonAdvertisedUnreachable,
		Message: err.Error() + "; applied anyway: the consumer cluster may reach it"})
}
