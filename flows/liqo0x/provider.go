package liqo0x

import (
	"context"
	"fmt"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// ReasonAuthenticationDisabled is the reason of the Warning shown
// for a Liqo 0.x provider whose auth server accepts any token.
const ReasonAuthenticationDisabled = "AuthenticationDisabled"

// GeneratePeerInfo gathers a Liqo 0.x provider's peer info (cluster ID and
// name, auth URL, token), as `liqoctl generate peer-command` does, as one
// step on the cluster of the one kubeconfig given. No event carries the
// token.
func GeneratePeerInfo(ctx context.Context, provider *kube.Cluster, authURLOverride string, sink handshake.Sink) (*peerinfo.Info, error) {
	return generatePeerInfo(ctx, provider, authURLOverride, handshake.Local, sink)
}

func generatePeerInfo(ctx context.Context, provider *kube.Cluster, authURLOverride string, scope handshake.Scope, sink handshake.Sink) (*peerinfo.Info, error) {
	sink = step.OrDiscard(sink)
	var info *peerinfo.Info
	err := step.One(ctx, sink, step.Step{ID: "generate-peer-info", Scope: scope,
		Title:   "Gathering the peer info (cluster ID, auth URL, token)",
		Failure: "Unable to gather the peer info", Command: "liqoctl generate peer-command --only-command",
		Run: func(ctx context.Context) error {
			release, err := provider.DetectRelease(ctx)
			if err != nil {
				return err
			}
			if err := requireProvider(release); err != nil {
				return err
			}
			if info, err = kliqo0x.On(provider).PeerInfo(ctx, authURLOverride); err != nil {
				return err
			}
			return artifact.ValidatePeerInfo(info)
		},
		Outcome: func() string {
			return fmt.Sprintf("Peer info of %s (%s) gathered: auth URL %s, token %s", info.ClusterName, info.ClusterID, info.AuthURL, info.MaskedToken())
		}})
	if err != nil {
		return nil, err
	}
	if info.AuthenticationUnknown {
		probeAuthenticationDisabled(ctx, info, scope, sink)
	}
	if info.AuthenticationDisabled {
		sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: scope, Warning: true, Reason: ReasonAuthenticationDisabled,
			Message: handshake.AuthenticationDisabledWarning(info.AuthURL)})
	}
	return info, nil
}

// probeAuthenticationDisabled asks the auth server itself, from this
// machine, whether it accepts any token, when the liqo-auth Deployment
// could not tell (missing or not readable). The probe writes nothing.
func probeAuthenticationDisabled(ctx context.Context, info *peerinfo.Info, scope handshake.Scope, sink handshake.Sink) {
	ctx, cancel := context.WithTimeout(ctx, authProbeTimeout)
	defer cancel()
	// Only a question: the answer is not trusted for anything but a warning.
	client, err := kliqo0x.NewAuthClient(kliqo0x.AuthOptions{URL: info.AuthURL, InsecureSkipTLSVerify: true, Timeout: authProbeTimeout})
	if err == nil {
		info.AuthenticationDisabled, err = client.AuthenticationDisabled(ctx)
	}
	info.AuthenticationUnknown = err != nil
	if err != nil {
		sink(handshake.Event{Kind: handshake.Note, Scope: scope, Message: "Could not check whether authentication is enabled on " + info.AuthURL +
			" (the liqo-auth Deployment is not readable and the auth server does not answer from this machine)"})
	}
}

// authProbeTimeout bounds that probe: the answer comes at once, without
// the 30 s signing wait of a real request.
const authProbeTimeout = 5 * time.Second

// requireProvider refuses a provider that does not run Liqo 0.x, or
// runs v0.2 (ServiceAccount identities, not supported).
func requireProvider(r kube.LiqoRelease) error {
	switch {
	case r.Flavor == kube.FlavorUnknown:
		// A restricted user: the peer info lookup itself says what is missing.
		return nil
	case r.Flavor != kube.FlavorLiqo0x:
		return fmt.Errorf("this cluster runs %s, not Liqo 0.x: peer info is for Liqo 0.x providers; authenticate with the nonce handshake (`liqo-auth-tui create nonce`) instead", r)
	case r.Line == peerinfo.V02:
		return fmt.Errorf("this cluster runs %s: %s", r, handshake.Liqo02Unsupported)
	}
	return nil
}
