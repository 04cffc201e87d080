package flows

import (
	"context"
	"fmt"

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
// fail: the consumer cluster may reach what this machine cannot. Through an
// in-band proxy (InBandProxy) that is expected, and said as a note.
func warnIfUnreachable(ctx context.Context, consumer *kube.Cluster, providerID string, p authv1beta1.AuthParams, sink handshake.Sink, scope handshake.Scope) {
	err := CheckAdvertisedReachable(ctx, p)
	if err == nil || sink == nil {
		return
	}
	if p.ProxyURL != "" && InBandProxy(ctx, consumer, providerID, p.ProxyURL) {
		sink(handshake.Event{Kind: handshake.Note, Scope: scope, Reason: ReasonInBandOnly, Message: inBandOnly(p.APIServer, p.ProxyURL)})
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

// Reasons of the events the check from the consumer's Pods gives.
const (
	ReasonReachableFromPods   = "ReachableFromPods"
	ReasonReachFromPodsUnsure = "ReachFromPodsNotChecked"
)

// PodReach is what a Pod of the consumer saw dialling an address.
type PodReach = kube.PodReach

// CheckFromConsumerPods dials apiServer from a short-lived Pod of the
// consumer (kube.CheckReachFromPods), of the consumer's controller image
// when it has one installed, else the default one. A proxy URL that holds
// credentials is not put in a Pod's arguments: not checked.
func CheckFromConsumerPods(ctx context.Context, consumer *kube.Cluster, apiServer string, ca []byte, proxyURL string) (PodReach, error) {
	if u, err := kube.ParseProxyURL(proxyURL); err == nil && u != nil && u.User != nil {
		return PodReach{Why: "the proxy URL holds credentials, which are not put in a Pod's arguments"}, nil
	}
	image, err := consumer.InstalledControllerImage(ctx)
	if err != nil || image == "" {
		image = ControllerImage
	}
	return consumer.CheckReachFromPods(ctx, image, apiServer, ca, proxyURL)
}

// UnreachableFromPodsError is an advertised API server the consumer's
// Pods do not reach, though this machine may: Liqo's components on the
// consumer would fail with its kubeconfig Secret.
type UnreachableFromPodsError struct {
	APIServer string
	Reach     PodReach
}

func (e *UnreachableFromPodsError) Error() string {
	return fmt.Sprintf("the consumer's Pods cannot reach %s, the API server the provider advertises (%s; checked from Pod %s on Node %s)",
		e.APIServer, e.Reach.Why, e.Reach.Pod, e.Reach.Node) + hintSeparator + e.Hint()
}

// Hint is what to do: the wizard shows it apart (Explain).
func (e *UnreachableFromPodsError) Hint() string {
	return "pass --api-server-override with an address they reach (in the wizard: e on the address it shows), " +
		"or --skip-pod-reach-check if they will reach it before the peering is used"
}

// checkFromConsumerPods is the one rule of the flows: an address the
// consumer's Pods do not reach refuses the flow before its next write
// (*UnreachableFromPodsError); one they reach is said as a note; a check
// that could not run is a Warning, except on a cluster without Nodes,
// where no Pod's view can differ from this machine's.
func checkFromConsumerPods(ctx context.Context, consumer *kube.Cluster, apiServer string, ca []byte, proxyURL string, sink handshake.Sink, scope handshake.Scope) error {
	r, err := CheckFromConsumerPods(ctx, consumer, apiServer, ca, proxyURL)
	switch {
	case err != nil:
		return err
	case r.Checked && !r.Reachable:
		return &UnreachableFromPodsError{APIServer: apiServer, Reach: r}
	case sink == nil || r.NoNode:
	case r.Checked:
		sink(handshake.Event{Kind: handshake.Note, Scope: scope, Reason: ReasonReachableFromPods,
			Message: fmt.Sprintf("the consumer's Pods reach %s (checked from Pod %s on Node %s)", apiServer, r.Pod, r.Node)})
	default:
		sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Warning: true, Reason: ReasonReachFromPodsUnsure,
			Message: fmt.Sprintf("%s not checked from the consumer's Pods: %s", apiServer, r.Why)})
	}
	return nil
}
