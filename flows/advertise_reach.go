package flows

import (
	"context"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// AdvertisedUnreachableError is a provider's advertised API server that
// does not answer from this machine (flows/internal/access makes it, as
// verify of both generations does).
type AdvertisedUnreachableError = access.AdvertisedUnreachableError

// AdvertisedUnreachable turns the failure to reach a provider's advertised
// API server into the one line that says so; other errors come back
// unchanged.
func AdvertisedUnreachable(err error) error { return access.AdvertisedUnreachable(err) }

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

// ReasonLoopbackAPIServer is the reason of the Warning given, before the
// first write, when the provider's kubeconfig server is a loopback address.
const ReasonLoopbackAPIServer = "LoopbackAPIServer"

// LoopbackWarning says, when the provider's kubeconfig reaches its API
// server on a loopback address (kind's 127.0.0.1:PORT), that the
// consumer's Pods cannot use that address, and what a will advertise
// instead; "" when the kubeconfig's server is not loopback or an override
// chose the address.
func LoopbackWarning(provider *kube.Cluster, a Advertisement) string {
	host := kube.LoopbackHost(provider.Config.Host)
	switch {
	case host == "" || a.Source == AdvertiseOverride || a.Source == AdvertiseController:
		return ""
	case kube.LoopbackHost(a.APIServer) == "":
		return "the consumer's Pods cannot reach " + host + ": the provider will advertise " + a.APIServer + "; --api-server-override to choose another"
	}
	return "the consumer's Pods cannot reach " + host + " and the provider has no control-plane Node to advertise instead: pass --api-server-override with an address they reach"
}

// warnIfLoopback gives LoopbackWarning as a Warning progress event.
func warnIfLoopback(ctx context.Context, provider *kube.Cluster, consumerID string, o EngineOptions, sink handshake.Sink, scope handshake.Scope) {
	if sink == nil || kube.LoopbackHost(provider.Config.Host) == "" || o.APIServerOverride != "" {
		return
	}
	a, err := AdvertisedTo(ctx, provider, consumerID, o)
	if err != nil {
		return // the apply tells; this is a warning
	}
	if line := LoopbackWarning(provider, a); line != "" {
		sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Warning: true, Reason: ReasonLoopbackAPIServer, Message: line})
	}
}
