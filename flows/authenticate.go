package flows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// AuthenticateOptions drive the automated flow: the tool reaches both
// clusters (consumer local, provider remote).
type AuthenticateOptions struct {
	Consumer, Provider *kube.Cluster
	// ProxyURL is the proxy through which the consumer reaches the provider's
	// API server: the Tenant's spec.proxyURL (§5.2), then the proxy-url of
	// the consumer's kubeconfig Secret (§8). "" = direct.
	ProxyURL string
	// InBand, with no ProxyURL, is Liqo's --in-band: the proxy is derived
	// from Liqo's networking objects (InBandProxyURL) before anything is
	// written, and refused when they are missing.
	InBand bool
	// StepTimeout bounds each wait (0 = only the context).
	StepTimeout time.Duration
	Engine      EngineOptions
	// SkipPodReachCheck: the advertised API server is not dialled from a
	// Pod of the consumer before the first write (checkFromConsumerPods).
	SkipPodReachCheck bool
}

// Result is what a completed handshake produced; its JSON is what
// `authenticate -o json` prints.
type Result struct {
	Action         string `json:"action"` // ActionAuthenticated
	ConsumerID     string `json:"consumerID"`
	ProviderID     string `json:"providerID"`
	ConsumerEngine Engine `json:"consumerEngine"`
	ProviderEngine Engine `json:"providerEngine"`
	// TenantName is namespace/name of the Tenant on the provider,
	// IdentityName of the Identity on the consumer.
	TenantName          string                `json:"tenant"`
	IdentityName        string                `json:"identity"`
	Tenant              *authv1beta1.Tenant   `json:"-"`
	Identity            *authv1beta1.Identity `json:"-"`
	KubeconfigSecret    string                `json:"kubeconfigSecret"` // namespace/name on the consumer
	ConsumerFingerprint string                `json:"consumerKeyFingerprint"`
	// CertificateNotAfter is when the consumer's certificate expires (zero:
	// unreadable); the provider renews it at 2/3 of its validity.
	CertificateNotAfter time.Time `json:"certificateNotAfter,omitzero"`
	// ProxyURL is the Tenant's proxy (given, or derived for --in-band).
	ProxyURL string `json:"proxyURL,omitempty"`
}

// What a command did, in its result's "action".
const (
	ActionAuthenticated   = "authenticated"
	ActionUnauthenticated = "unauthenticated"
)

// Authenticate runs the 14 steps of `liqoctl authenticate` (§9.1), with
// event-driven waits that fail at once on a controller Warning. Every step
// is idempotent, so an interrupted run completes when started again.
func Authenticate(ctx context.Context, o AuthenticateOptions, sink handshake.Sink) (*Result, error) {
	if _, err := kube.ParseProxyURL(o.ProxyURL); err != nil {
		return nil, fmt.Errorf("--proxy-url: %w", err)
	}
	// The in-process controllers live for this flow: the handshake's only.
	eng := engines{handshakeOnly: true}
	defer eng.stop()
	res := &Result{}
	var consumerNS, providerNS *corev1.Namespace
	var nonce string
	var signature []byte
	var tenant *authv1beta1.Tenant
	var identity *authv1beta1.Identity
	consumer, provider := o.Consumer, o.Provider
	proxyURL := o.ProxyURL
	steps := []Step{
		{ID: "cluster-ids", Scope: handshake.NoScope, Title: "Retrieving cluster IDs", Success: "Cluster IDs retrieved",
			Failure: "an error occurred while retrieving cluster id", Command: "kubectl get configmap -n liqo -l app.kubernetes.io/name=clusterid-configmap",
			Run: func(ctx context.Context) (err error) {
				// Both at once (every handshake waits for them); the
				// consumer's error first when both fail, as before.
				var g sync.WaitGroup
				var consumerErr, providerErr error
				g.Go(func() {
					defer kube.RecoverAsError(&consumerErr, "reading the consumer's cluster ID")
					res.ConsumerID, consumerErr = consumer.ClusterID(ctx)
				})
				g.Go(func() {
					defer kube.RecoverAsError(&providerErr, "reading the provider's cluster ID")
					res.ProviderID, providerErr = provider.ClusterID(ctx)
				})
				g.Wait()
				if consumerErr != nil {
					return step.Scoped(handshake.Local, consumerErr)
				}
				if providerErr != nil {
					return step.Scoped(handshake.Remote, providerErr)
				}
				if res.ConsumerID == res.ProviderID {
					return errors.New(handshake.SameClusterProblem(res.ConsumerID))
				}
				return nil
			}},
		{ID: "engines", Scope: handshake.NoScope, Title: "Checking the controllers and permissions of both clusters", Success: "Controllers ready",
			Failure: "Unable to prepare the handshake",
			Run: func(ctx context.Context) error {
				// Both sides at once, writing nothing until both are known to
				// work: what serves each side, and whether the provider's
				// kubeconfig (perhaps a peering user's) may do the flow's part.
				var g errgroup.Group
				g.Go(func() (err error) {
					defer kube.RecoverAsError(&err, "checking the consumer's controllers")
					if res.ConsumerEngine, err = chooseEngine(ctx, consumer, handshake.RoleConsumer, o.Engine); err != nil {
						return fmt.Errorf("(local) %w", err)
					}
					return nil
				})
				g.Go(func() (err error) {
					defer kube.RecoverAsError(&err, "checking the provider's controllers and permissions")
					// What serves the provider and what its kubeconfig may do:
					// both read-only, so at once.
					var access sync.WaitGroup
					var accessErr error
					access.Go(func() {
						defer kube.RecoverAsError(&accessErr, "checking the provider's permissions")
						if accessErr = checkProviderAccess(ctx, provider, res.ConsumerID); accessErr == nil {
							accessErr = refuseDrainedTenant(ctx, provider, "", res.ConsumerID)
						}
					})
					if res.ProviderEngine, err = chooseEngine(ctx, provider, handshake.RoleProvider, o.Engine); err == nil {
						err = checkAdvertiseEngine(res.ProviderEngine, o.Engine)
					}
					access.Wait()
					if err == nil {
						err = accessErr
					}
					if err != nil {
						return fmt.Errorf("(remote) %w", err)
					}
					// Before anything is written: an address only this
					// machine reaches is said now, with what is advertised.
					warnIfLoopback(ctx, provider, res.ConsumerID, o.Engine, sink, handshake.Remote)
					return nil
				})
				if !o.SkipPodReachCheck {
					g.Go(func() (err error) {
						defer kube.RecoverAsError(&err, "checking the advertised API server from the consumer's Pods")
						a, err := AdvertisedOrFixed(ctx, provider, res.ConsumerID, o.Engine)
						if err != nil {
							return nil // the provider's checks above say what is wrong
						}
						if err := checkFromConsumerPods(ctx, consumer, a.APIServer, a.CA, proxyURL, sink, handshake.Local); err != nil {
							return fmt.Errorf("(local) %w", err)
						}
						return nil
					})
				}
				if err := g.Wait(); err != nil {
					return err
				}
				return eng.serveInOrder(ctx, consumer, provider, res.ConsumerEngine, res.ProviderEngine, o.Engine, sink)
			}},
		ensureTenantNamespaceStep(handshake.Local, consumer, func() string { return res.ProviderID }, &consumerNS),
		ensureTenantNamespaceStep(handshake.Remote, provider, func() string { return res.ConsumerID }, &providerNS),
		ensureNonceSecretStep(provider, func() string { return providerNS.Name }, func() string { return res.ConsumerID }),
		unservedNonceWait(waitNonceStep(provider, sink, o.StepTimeout, func() string { return providerNS.Name }, func() string { return res.ConsumerID }, &nonce),
			func() Engine { return res.ProviderEngine }, func() string { return res.ProviderID }, provider.Server),
		{ID: "retrieve-nonce", Scope: handshake.Remote, Title: "Retrieving nonce", Success: "Nonce retrieved", Failure: "Unable to retrieve nonce",
			Command: "liqoctl get nonce --remote-cluster-id <consumer>",
			Run:     func(ctx context.Context) error { return authcrypto.ValidateNonce(nonce) }},
		ensureSignedNonceStep(consumer, func() string { return consumerNS.Name }, func() string { return res.ProviderID }, func() string { return nonce }),
		waitSignatureStep(consumer, sink, o.StepTimeout, func() string { return consumerNS.Name }, func() string { return res.ProviderID }, &signature),
		{ID: "retrieve-signature", Scope: handshake.Local, Title: "Retrieving signed nonce", Success: "Signed nonce retrieved",
			Failure: "Unable to retrieve signed nonce", Run: func(context.Context) error { return nil }},
		generateTenantStep(consumer, func() string { return res.ConsumerID }, func() string { return providerNS.Name },
			func() []byte { return signature }, func() string { return proxyURL }, &tenant, &res.ConsumerFingerprint),
		{ID: "apply-tenant", Scope: handshake.Remote, Title: "Applying tenant on provider cluster", Success: "Tenant correctly applied on provider cluster",
			Failure: "Unable to apply tenant on provider cluster", Command: "kubectl apply -f tenant.yaml -n liqo-tenant-<consumer>",
			Run: func(ctx context.Context) (err error) {
				if tenant, err = advertiseTenant(tenant, o.Engine); err != nil {
					return err
				}
				if tenant, _, err = provider.ApplyTenant(ctx, tenant); err != nil {
					return err
				}
				tenant, err = ensureAdvertiseAnnotations(ctx, provider, tenant, o.Engine, false)
				return err
			}},
		waitTenantStatusStep(provider, sink, o.StepTimeout, func() *authv1beta1.Tenant { return tenant }, &tenant),
		{ID: "generate-identity", Scope: handshake.Remote, Title: "Generating identity", Success: "Identity correctly generated",
			Failure: "An error occurred while generating identity", Command: "liqoctl generate identity --remote-cluster-id <consumer>",
			Run: func(context.Context) (err error) {
				identity, err = kube.ForgeIdentity(res.ProviderID, consumerNS.Name, tenant)
				return err
			}},
		{ID: "apply-identity", Scope: handshake.Local, Title: "Applying identity on consumer cluster", Success: "Identity correctly applied on consumer cluster",
			Failure: "Unable to apply identity on consumer cluster", Command: "kubectl apply -f identity.yaml -n liqo-tenant-<provider>",
			Run: func(ctx context.Context) (err error) {
				// The dial to the advertised API server and the apply at once.
				params := identity.Spec.AuthParams
				var reach sync.WaitGroup
				var reachErr error
				reach.Go(func() {
					defer kube.RecoverAsError(&reachErr, "checking the advertised API server")
					warnIfUnreachable(ctx, consumer, res.ProviderID, params, sink, handshake.Local)
				})
				identity, _, err = consumer.ApplyIdentity(ctx, identity)
				reach.Wait()
				if err == nil {
					err = reachErr
				}
				return err
			}},
		waitIdentityStatusStep(consumer, sink, o.StepTimeout, func() string { return res.ProviderID }, &identity),
	}
	if o.InBand && o.ProxyURL == "" {
		// After the cluster IDs, before the first write.
		steps = slices.Insert(steps, 1, inBandProxyStep(consumer, provider, func() string { return res.ProviderID }, &proxyURL))
	}
	if err := step.Run(ctx, sink, steps); err != nil {
		return nil, err
	}
	res.Action, res.Tenant, res.Identity = ActionAuthenticated, tenant, identity
	res.TenantName, res.IdentityName = tenant.Namespace+"/"+tenant.Name, identity.Namespace+"/"+identity.Name
	res.KubeconfigSecret = identity.Namespace + "/" + identity.Status.KubeconfigSecretRef.Name
	res.CertificateNotAfter = artifact.CertificateNotAfter(identity)
	res.ProxyURL = proxyURL
	return res, nil
}
