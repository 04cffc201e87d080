package liqo0x

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// DefaultInsecureSkipTLSVerify is Options.InsecureSkipTLSVerify
// unless the admin says otherwise, in the commands (the flag's default) and
// the wizard alike: Liqo's default, since the chart's auth server
// certificate is self-signed.
const DefaultInsecureSkipTLSVerify = true

// Options are the choices of a Liqo 0.x authentication.
type Options struct {
	// Peer turns outgoing peering on in a Liqo 0.x consumer's
	// ForeignCluster (off: authentication only; Liqo authenticates anyway).
	Peer bool
	// ForeignClusterName names a ForeignCluster created on a Liqo 0.x
	// consumer ("" = the provider's cluster name).
	ForeignClusterName string
	// InsecureSkipTLSVerify lets this tool skip verifying the provider's
	// auth server certificate when it cannot be verified (Liqo's default:
	// the chart's certificate is self-signed); it verifies when it can.
	InsecureSkipTLSVerify bool
	// ConsumerName is the name this tool, as the 0.x consumer, gives its
	// cluster on the provider ("" = CLUSTER_NAME of the cluster-ID
	// ConfigMap, else derived from the ID).
	ConsumerName string
	// Provider, when set (automated mode), lets the tool recover an
	// identity the provider already issued.
	Provider *kube.Cluster
	// Reissue: with Provider, delete the provider's stale identity for this
	// consumer and ask again (the admin agreed).
	Reissue bool
	// StepTimeout bounds each wait (0 = only the context).
	StepTimeout time.Duration
	// AuthServerFingerprint, when set, is the pinned fingerprint of the
	// provider's auth server certificate: a peer info whose auth URL
	// presents another one is refused before anything is written.
	AuthServerFingerprint string
}

// Result is what a Liqo 0.x authentication left on the consumer.
type Result struct {
	ConsumerID string `json:"consumerID"`
	ProviderID string `json:"providerID"`
	// ByTool: this tool was the 0.x consumer; else the consumer's Liqo 0.x.
	ByTool bool `json:"byTool"`
	// AlreadyAuthenticated: the consumer held an identity for the provider:
	// nothing was sent (Liqo 0.x reuses it and never sends the token).
	AlreadyAuthenticated bool `json:"alreadyAuthenticated"`
	// IdentitySecret is namespace/name of the liqo-identity-* Secret, or of
	// the kubeconfig Secret this tool stored.
	IdentitySecret string    `json:"identitySecret"`
	User           string    `json:"user,omitempty"`
	Groups         []string  `json:"groups,omitempty"`
	Issued         time.Time `json:"issued,omitzero"`
	NotAfter       time.Time `json:"notAfter,omitzero"`
	// TLSVerified: this tool verified the auth server's certificate.
	TLSVerified            bool `json:"tlsVerified"`
	AuthenticationDisabled bool `json:"authenticationDisabled,omitempty"`
	// Kubeconfig is the identity this tool obtained (ByTool): a credential,
	// never logged.
	Kubeconfig []byte `json:"-"`
}

// ApplyPeerInfo authenticates consumer with the Liqo 0.x provider info
// names: through the consumer's own Liqo 0.x (token Secret, ForeignCluster,
// wait), or, on a cluster prepared by init or without Liqo, with this tool
// as the 0.x consumer. Bad input and a wrong token are refused before
// anything is written.
func ApplyPeerInfo(ctx context.Context, consumer *kube.Cluster, info *peerinfo.Info, o Options, sink handshake.Sink) (*Result, error) {
	sink = step.OrDiscard(sink)
	if err := artifact.ValidatePeerInfo(info); err != nil {
		return nil, err
	}
	if err := checkAuthServerPin(ctx, info.AuthURL, o.AuthServerFingerprint); err != nil {
		return nil, err
	}
	if o.ConsumerName != "" {
		if err := ValidateClusterName(o.ConsumerName); err != nil {
			return nil, err
		}
	}
	res := &Result{ProviderID: info.ClusterID, AuthenticationDisabled: info.AuthenticationDisabled}
	var release kube.LiqoRelease
	title, failure := "Checking the peer info against this cluster", "The peer info cannot be used on this cluster"
	if o.Provider != nil {
		// The automated flow: no peer info was handed over.
		title = "Checking that this cluster can authenticate with provider " + info.ClusterName
		failure = "This cluster cannot authenticate with Liqo 0.x provider " + info.ClusterName
	}
	err := step.One(ctx, sink, step.Step{ID: "check-peer-info", Scope: handshake.Local, Title: title,
		Failure: failure, Command: "kubectl get configmap -n liqo -l app.kubernetes.io/name=clusterid-configmap",
		Run: func(ctx context.Context) (err error) {
			if release, err = consumer.DetectRelease(ctx); err != nil {
				return err
			}
			res.ConsumerID, err = checkConsumer(ctx, consumer, release, info)
			return err
		},
		Outcome: func() string {
			if release.Flavor == kube.FlavorLiqo0x {
				return fmt.Sprintf("Consumer %s runs %s: its Liqo authenticates with provider %s", res.ConsumerID, release, info.ClusterID)
			}
			return fmt.Sprintf("Consumer %s runs %s: this tool authenticates as the Liqo 0.x consumer", res.ConsumerID, release)
		}})
	if err != nil {
		return nil, err
	}
	if release.Flavor == kube.FlavorLiqo0x {
		err = applyThroughLiqo(ctx, consumer, info, o, res, sink)
	} else {
		res.ByTool = true
		err = applyAsTool(ctx, consumer, info, o, res, sink)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Authenticate is the automated Liqo 0.x flow: the peer info comes
// from the provider (remote), then ApplyPeerInfo on the consumer (local)
// with the provider at hand for recovery.
func Authenticate(ctx context.Context, consumer, provider *kube.Cluster, authURLOverride string, o Options, sink handshake.Sink) (*Result, error) {
	info, err := generatePeerInfo(ctx, provider, authURLOverride, handshake.Remote, sink)
	if err != nil {
		return nil, err
	}
	o.Provider = provider
	return ApplyPeerInfo(ctx, consumer, info, o, sink)
}

// checkConsumer refuses, before anything is written, a consumer that
// cannot use the peer info, and returns its cluster ID.
func checkConsumer(ctx context.Context, consumer *kube.Cluster, release kube.LiqoRelease, info *peerinfo.Info) (string, error) {
	provider := kube.LiqoRelease{Flavor: kube.FlavorLiqo0x, Version: info.Version, Line: info.Line}
	switch release.Flavor {
	case kube.FlavorUnknown:
		return "", errors.New("cannot tell which Liqo this cluster runs (its API groups are not readable): use a kubeconfig that may read them")
	case kube.FlavorV1, kube.FlavorLiqo0x:
		if problem := kube.PairProblem("(this cluster)", release, info.ClusterName, provider); problem != "" {
			return "", errors.New(problem)
		}
	}
	id, err := consumer.ClusterID(ctx)
	if errors.Is(err, kube.ErrNoClusterID) && release.Flavor != kube.FlavorLiqo0x {
		return "", errors.New("this cluster has no cluster ID, which names it on the provider: run `liqo-auth-tui init` on it first")
	}
	if err != nil {
		return "", err
	}
	if id == info.ClusterID {
		return "", ownPeerInfoError(id)
	}
	return id, nil
}

// ownPeerInfoError refuses the peer info of the cluster it is applied on.
func ownPeerInfoError(id string) error {
	return fmt.Errorf("the peer info is this cluster's own (cluster ID %s): apply it on the consumer, not on the provider", id)
}

// CheckPeerInfo reads a pasted peer info for consumer, writing nothing: a
// peer info of the consumer itself is refused. forID is the consumer's ID,
// "" when it cannot be read yet (ApplyPeerInfo explains why).
func CheckPeerInfo(ctx context.Context, consumer *kube.Cluster, data []byte) (info *PeerInfo, forID string, err error) {
	if info, err = artifact.ParsePeerInfo(data); err != nil {
		return nil, "", err
	}
	if id, err := consumer.ClusterID(ctx); err == nil {
		if id == info.ClusterID {
			return nil, "", ownPeerInfoError(id)
		}
		forID = id
	}
	return info, forID, nil
}

// applyThroughLiqo drives the consumer's Liqo 0.x as `liqoctl peer
// out-of-band` does, and waits for its AuthenticationStatus.
func applyThroughLiqo(ctx context.Context, consumer *kube.Cluster, info *peerinfo.Info, o Options, res *Result, sink handshake.Sink) error {
	providerID := info.ClusterID
	var existing *kliqo0x.Identity
	// The identity first: Liqo reuses it and never sends the token, so a
	// token (even a wrong one) is then neither checked nor stored.
	steps := []step.Step{
		{ID: "existing-identity", Scope: handshake.Local, Title: "Looking for an identity already issued by the provider",
			Failure: "Unable to look for an existing identity", Command: "kubectl get secrets -A -l discovery.liqo.io/local-identity=true,discovery.liqo.io/cluster-id=" + providerID,
			Run: func(ctx context.Context) (err error) {
				existing, err = kliqo0x.On(consumer).IdentityFor(ctx, providerID)
				if kube.IsNotFound(err) {
					existing, err = nil, nil
				}
				return err
			},
			Outcome: func() string {
				if existing == nil {
					return "No identity for provider " + providerID + " yet"
				}
				return fmt.Sprintf("This cluster already holds an identity for provider %s (Secret %s/%s, issued %s, expires %s): Liqo reuses it and does NOT send the token",
					providerID, existing.Namespace, existing.Name, handshake.TimeText(existing.NotBefore), handshake.TimeText(existing.NotAfter))
			}},
	}
	if err := step.Run(ctx, sink, steps); err != nil {
		return err
	}
	if existing != nil {
		res.AlreadyAuthenticated = true
		return describeIdentity(ctx, existing, res, sink)
	}
	masked := LiqoctlPeerCommand(MaskedPeerInfo(info))
	var applied []kube.Change
	steps = []step.Step{}
	if o.Provider != nil {
		steps = append(steps, staleProviderIdentityStep(o, info, res, sink))
	}
	steps = append(steps,
		probeTokenStep(info, o, res, sink),
		step.Step{ID: "apply-peer", Scope: handshake.Local, Title: "Storing the token and creating the ForeignCluster",
			Success: "Token Secret and ForeignCluster applied", Failure: "Unable to apply the token and ForeignCluster", Command: masked,
			Run: func(ctx context.Context) error {
				changes, err := kliqo0x.On(consumer).ApplyPeer(ctx, info, kliqo0x.PeerOptions{Peer: o.Peer, Name: o.ForeignClusterName})
				applied = changes
				for _, ch := range changes {
					sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: ch.String()})
				}
				return err
			}},
	)
	if err := step.Run(ctx, sink, steps); err != nil {
		return err
	}
	if err := step.One(ctx, sink, waitAuthStep(consumer, info, o, res, sink)); err != nil {
		undoPeer(ctx, consumer, providerID, applied, sink)
		return err
	}
	id, err := kliqo0x.On(consumer).IdentityFor(ctx, providerID)
	if err != nil {
		return fmt.Errorf("authenticated, but the identity Secret of provider %s is not readable: %w", providerID, err)
	}
	return describeIdentity(ctx, id, res, sink)
}

// undoPeer removes, once the authentication failed, what this run
// created on the consumer, so that a failed run leaves nothing behind; a
// ForeignCluster that existed before stays. Said in one note either way.
func undoPeer(ctx context.Context, consumer *kube.Cluster, providerID string, applied []kube.Change, sink handshake.Sink) {
	// Also after an interrupt or the step's deadline.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
	defer cancel()
	changes, err := kliqo0x.On(consumer).UndoPeer(ctx, providerID, applied)
	var removed []string
	for _, ch := range changes {
		if ch.Action == kube.Deleted {
			removed = append(removed, ch.Object)
		}
	}
	msg := "Removed what this run created, as the authentication failed: " + strings.Join(removed, ", ")
	switch {
	case err != nil:
		msg = fmt.Sprintf("Could not remove what this run created (%v): `liqo-auth-tui unauthenticate --one-sided --remote-cluster-id %s` does", err, providerID)
	case len(removed) == 0:
		return
	}
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: msg})
}

// undoTimeout bounds the removal after a failed authentication
// (Liqo's controller-manager lets the ForeignCluster go within a second).
const undoTimeout = 30 * time.Second

// waitAuthStep waits for the ForeignCluster's AuthenticationStatus;
// an identity the provider already issued is deleted there when the admin
// agreed (Reissue with Provider), then the wait starts again.
func waitAuthStep(consumer *kube.Cluster, info *peerinfo.Info, o Options, res *Result, sink handshake.Sink) step.Step {
	return step.Step{ID: "wait-authenticated", Scope: handshake.Local, Timeout: o.StepTimeout,
		Title: "Waiting for the provider to issue the identity", Success: "Identity issued by the provider (AuthenticationStatus Established)",
		Failure: "Authentication failed", Command: "kubectl get foreignclusters.discovery.liqo.io -l discovery.liqo.io/cluster-id=" + info.ClusterID + " -w",
		Run: func(ctx context.Context) error {
			// Woken at once: a ForeignCluster that existed may sit in Liqo's
			// backoff (or, after a stale identity was deleted, say
			// Established while Liqo holds none).
			_, err := kliqo0x.On(consumer).RetryAuthentication(ctx, info.ClusterID, nil)
			var failure *kliqo0x.AuthFailure
			if !errors.As(err, &failure) || failure.Refusal != kliqo0x.AlreadyIssued {
				return err
			}
			if o.Provider == nil || !o.Reissue {
				return alreadyIssuedError(ctx, o, res.ConsumerID)
			}
			if err := deleteProviderIdentity(ctx, o.Provider, res.ConsumerID, sink); err != nil {
				return err
			}
			_, err = kliqo0x.On(consumer).RetryAuthentication(ctx, info.ClusterID, failure)
			return err
		}}
}

// staleProviderIdentityStep (automated mode): the provider keeps a
// certificate it issued to this consumer, which holds no identity: Liqo's
// requests would be refused for good (and Liqo v0.10 keeps saying
// Established). Refused with the object to delete, or deleted there when
// the admin agreed (Reissue).
func staleProviderIdentityStep(o Options, info *peerinfo.Info, res *Result, sink handshake.Sink) step.Step {
	return step.Step{ID: "stale-identity", Scope: handshake.Remote, Title: "Checking that the provider holds no identity issued to this consumer",
		Success: "The provider holds no identity issued to this consumer", Failure: "Unable to authenticate",
		Command: "kubectl get secrets -A -l " + kliqo0x.ClusterIDLabel + "=<consumer> --field-selector metadata.name=" + kube.RemoteCertSecretName,
		Run: func(ctx context.Context) error {
			_, _, _, err := kliqo0x.On(o.Provider).IssuedCertificate(ctx, res.ConsumerID)
			switch {
			case kube.IsNotFound(err):
				return nil
			case err != nil:
				return err
			case !o.Reissue:
				return alreadyIssuedError(ctx, o, res.ConsumerID)
			}
			return deleteProviderIdentity(ctx, o.Provider, res.ConsumerID, sink)
		}}
}

// probeTokenStep asks the provider's auth server, from this machine,
// whether the token is right, writing nothing anywhere. An auth server this
// machine cannot reach is a note: the consumer's cluster may reach it.
func probeTokenStep(info *peerinfo.Info, o Options, res *Result, sink handshake.Sink) step.Step {
	var outcome string
	return step.Step{ID: "check-token", Scope: handshake.Remote, Title: "Checking the token with the provider's auth server",
		Failure: "The provider refused the token", Command: "curl -k " + info.AuthURL + kliqo0x.IDsPath,
		Run: func(ctx context.Context) error {
			client, err := kliqo0x.NewAuthClient(kliqo0x.AuthOptions{URL: info.AuthURL, InsecureSkipTLSVerify: o.InsecureSkipTLSVerify})
			if err != nil {
				return err
			}
			check, err := client.CheckToken(ctx, info.Token)
			if isUnreachable(err) {
				outcome = "The auth server " + info.AuthURL + " does not answer from this machine (" + err.Error() + "): the consumer's Liqo will try from its cluster"
				return nil
			}
			if err != nil {
				return err
			}
			res.TLSVerified = client.TLSVerified()
			outcome = "Token accepted by " + info.AuthURL + tlsText(res.TLSVerified)
			return tokenCheckResult(check, info, res, sink)
		},
		Outcome: func() string { return outcome }}
}

// tokenCheckResult turns a token check into a refusal or a warning.
func tokenCheckResult(check kliqo0x.TokenCheck, info *peerinfo.Info, res *Result, sink handshake.Sink) error {
	switch check {
	case kliqo0x.TokenRefused:
		return &RefusedError{Refusal: kliqo0x.WrongToken, Err: fmt.Errorf(
			"the auth server at %s refused the token (wrong token; nothing was written): copy the peer info again from the provider (`liqo-auth-tui generate peer-info`)", info.AuthURL)}
	case kliqo0x.TokenAuthenticationDisabled:
		res.AuthenticationDisabled = true
		sink(handshake.Event{Kind: handshake.ClusterEvent, Scope: handshake.Remote, Warning: true, Reason: ReasonAuthenticationDisabled,
			Message: handshake.AuthenticationDisabledWarning(info.AuthURL)})
	}
	return nil
}

func isUnreachable(err error) bool {
	var authErr *kliqo0x.AuthError
	return errors.As(err, &authErr) && (authErr.Refusal == kliqo0x.Unreachable || authErr.Status == 0)
}

func tlsText(verified bool) string {
	if verified {
		return " (TLS certificate verified)"
	}
	return " (TLS certificate not verified: self-signed, as Liqo's chart makes it; skipped as Liqo does)"
}

// describeIdentity fills res from a Liqo 0.x identity: who it is on the
// provider (asked with its own credentials, else read from its certificate).
func describeIdentity(ctx context.Context, id *kliqo0x.Identity, res *Result, sink handshake.Sink) error {
	res.IdentitySecret = id.Namespace + "/" + id.Name
	res.Issued, res.NotAfter = id.NotBefore, id.NotAfter
	res.User, res.Groups = whoIs(ctx, id.Config, sink)
	return nil
}

// RefusedError is a refusal of a Liqo 0.x provider that this flow
// found itself (a token check, an identity already issued), with its
// class for front-ends.
type RefusedError struct {
	Refusal kliqo0x.Refusal
	Err     error
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// timeText shows a time, or "unknown".
