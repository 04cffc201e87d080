package liqo0x

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/step"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// remoteCertificateSecret is where a 0.x provider keeps the one
// certificate it issued to a consumer (§2.4).
const remoteCertificateSecret = "liqo-remote-certificate"

// applyAsTool makes this tool the Liqo 0.x consumer (§8(1)): the provider's
// auth server is asked for an identity with a key whose CSR is kept until
// the answer is stored, so that a re-run resends the same CSR.
func applyAsTool(ctx context.Context, consumer *kube.Cluster, info *peerinfo.Info, o Options, res *Result, sink handshake.Sink) error {
	providerID, consumerID := info.ClusterID, res.ConsumerID
	var existing *rest.Config
	err := step.One(ctx, sink, step.Step{ID: "existing-identity", Scope: handshake.Local, Title: "Looking for an identity already obtained from the provider",
		Failure: "Unable to look for an existing identity", Command: "kubectl get secrets -n liqo-tenant-" + providerID + " -l " + kliqo0x.ClientLabel,
		Run: func(ctx context.Context) error {
			s, err := kliqo0x.On(consumer).KubeconfigSecret(ctx, providerID)
			if kube.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			// Written by an earlier version with the v1 identity type: drop it.
			if change, err := kliqo0x.On(consumer).MigrateKubeconfigSecret(ctx, s); err != nil {
				return err
			} else if change.Action == kube.Updated {
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: change.String() +
					": label " + kube.IdentityTypeLabel + " removed, so that no Liqo v1 component takes this 0.x identity for a v1 one"})
			}
			res.IdentitySecret = s.Namespace + "/" + s.Name
			res.Kubeconfig = s.Data[kube.KubeconfigField]
			if existing, err = clientcmd.RESTConfigFromKubeConfig(s.Data[kube.KubeconfigField]); err != nil {
				return fmt.Errorf("kubeconfig in Secret %s: %w: delete it and run again", res.IdentitySecret, err)
			}
			return nil
		},
		Outcome: func() string {
			if existing == nil {
				return "No identity for provider " + providerID + " yet"
			}
			issued, notAfter := certificateTimes(existing.CertData)
			return fmt.Sprintf("This cluster already holds an identity for provider %s (Secret %s, issued %s, expires %s): nothing is sent",
				providerID, res.IdentitySecret, handshake.TimeText(issued), handshake.TimeText(notAfter))
		}})
	if err != nil {
		return err
	}
	if existing != nil {
		res.AlreadyAuthenticated = true
		res.Issued, res.NotAfter = certificateTimes(existing.CertData)
		res.User, res.Groups = whoIs(ctx, existing, sink)
		return nil
	}

	client, err := kliqo0x.NewAuthClient(kliqo0x.AuthOptions{URL: info.AuthURL, InsecureSkipTLSVerify: o.InsecureSkipTLSVerify})
	if err != nil {
		return err
	}
	var consumerName string
	var keyPEM, csrPEM []byte
	var resp *kliqo0x.IdentityResponse
	steps := []step.Step{
		{ID: "auth-server-ids", Scope: handshake.Remote, Title: "Reaching the provider's auth server",
			Failure: "Unable to reach the provider's auth server", Command: "curl -k " + info.AuthURL + kliqo0x.IDsPath,
			Run: func(ctx context.Context) error {
				ids, err := client.IDs(ctx)
				if err != nil {
					return err
				}
				if ids.ClusterID != providerID {
					return fmt.Errorf("the auth server at %s belongs to cluster %s (%s), not to the peer info's %s: check the auth URL (--auth-url on the provider)",
						info.AuthURL, ids.ClusterID, ids.ClusterName, providerID)
				}
				res.TLSVerified = client.TLSVerified()
				return nil
			},
			Outcome: func() string {
				return "Auth server " + info.AuthURL + " is cluster " + providerID + tlsText(res.TLSVerified)
			}},
		{ID: "check-token", Scope: handshake.Remote, Title: "Checking the token with the provider's auth server",
			Success: "Token accepted by the provider's auth server", Failure: "The provider refused the token",
			Run: func(ctx context.Context) error {
				check, err := client.CheckToken(ctx, info.Token)
				if err != nil {
					return err
				}
				if err := tokenCheckResult(check, info, res, sink); err != nil {
					return err
				}
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: fmt.Sprintf(
					"A Liqo 0.x provider issues ONE identity per cluster ID (%s): the key and CSR are kept on this cluster until the answer is stored, so that a re-run sends the same request", consumerID)})
				return nil
			}},
		{ID: "pending-request", Scope: handshake.Local, Title: "Preparing the key and CSR (kept until the identity is stored)",
			Failure: "Unable to prepare the identity request", Command: "kubectl get secret -n liqo-tenant-" + providerID + " " + kliqo0x.PendingSecretPrefix + providerID,
			Run: func(ctx context.Context) (err error) {
				if consumerName, err = toolConsumerName(ctx, consumer, consumerID, o.ConsumerName); err != nil {
					return err
				}
				keyPEM, csrPEM, err = kliqo0x.On(consumer).PendingRequest(ctx, providerID, consumerID)
				return err
			},
			Outcome: func() string {
				return "Key and CSR ready (CN " + consumerID + ", O liqo.io; name " + consumerName + " on the provider)"
			}},
		{ID: "request-identity", Scope: handshake.Remote, Title: "Asking the provider's auth server for an identity",
			Failure: "The provider did not issue the identity", Command: "curl -k -X POST " + info.AuthURL + kliqo0x.CertIdentityPath,
			Run: func(ctx context.Context) (err error) {
				req := kliqo0x.IdentityRequest{ConsumerID: consumerID, ConsumerName: consumerName, Token: info.Token, CSR: csrPEM}
				resp, err = requestLiqo0xIdentity(ctx, client, req, info, o, sink)
				return err
			},
			Outcome: func() string {
				return "Identity issued by the provider (tenant namespace " + resp.Namespace + " there)"
			}},
		{ID: "store-kubeconfig", Scope: handshake.Local, Title: "Storing the identity as a kubeconfig Secret",
			Failure: "Unable to store the identity", Command: "kubectl get secret -n liqo-tenant-" + providerID + " " + kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID)),
			Run: func(ctx context.Context) error {
				kubeconfig, err := kliqo0x.Kubeconfig(providerID, resp, keyPEM)
				if err != nil {
					return err
				}
				change, err := kliqo0x.On(consumer).StoreKubeconfig(ctx, providerID, resp.Namespace, kubeconfig)
				if err != nil {
					return err
				}
				sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Local, Message: change.String()})
				if err := kliqo0x.On(consumer).DeletePending(ctx, providerID); err != nil {
					return err
				}
				res.Kubeconfig = kubeconfig
				res.IdentitySecret = kube.TenantNamespacePrefix + providerID + "/" + kube.KubeconfigSecretName(kube.ControlPlaneIdentityName(providerID))
				return nil
			},
			Outcome: func() string { return "Identity stored in Secret " + res.IdentitySecret }},
	}
	if err := step.Run(ctx, sink, steps); err != nil {
		return err
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(res.Kubeconfig)
	if err != nil {
		return err
	}
	res.Issued, res.NotAfter = certificateTimes(cfg.CertData)
	res.User, res.Groups = whoIs(ctx, cfg, sink)
	return nil
}

// requestLiqo0xIdentity sends the identity request; when the provider
// already issued this consumer's identity and the provider is at hand, a
// certificate issued for our own pending CSR completes the run (an earlier
// run lost the answer), and with Reissue a stale one is deleted there and
// the request sent again.
func requestLiqo0xIdentity(ctx context.Context, client *kliqo0x.AuthClient, req kliqo0x.IdentityRequest, info *peerinfo.Info,
	o Options, sink handshake.Sink) (*kliqo0x.IdentityResponse, error) {
	resp, err := requestIdentity(ctx, client, req)
	var authErr *kliqo0x.AuthError
	if !errors.As(err, &authErr) || authErr.Refusal != kliqo0x.AlreadyIssued {
		return resp, err
	}
	if o.Provider == nil {
		return nil, alreadyIssuedError(ctx, o, req.ConsumerID)
	}
	ns, issuedCSR, certPEM, err := kliqo0x.On(o.Provider).IssuedCertificate(ctx, req.ConsumerID)
	if kube.IsNotFound(err) {
		return nil, fmt.Errorf("the provider refused the request as already issued, but holds no %s for cluster %s: %v", remoteCertificateSecret, req.ConsumerID, authErr)
	}
	if err != nil {
		return nil, step.Scoped(handshake.Remote, err)
	}
	if len(certPEM) > 0 && bytes.Equal(bytes.TrimSpace(issuedCSR), bytes.TrimSpace(req.CSR)) {
		// The answer is lost: its API server and CA are read as the auth server builds them.
		adv, err := kliqo0x.On(o.Provider).AdvertisedAPIServer(ctx)
		if err != nil {
			return nil, step.Scoped(handshake.Remote, err)
		}
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: fmt.Sprintf(
			"The provider had already issued the certificate for this cluster's pending CSR (Secret %s/%s): completing with it, "+
				"API server %s (from %s), CA from %s", ns, remoteCertificateSecret, adv.URL, adv.URLFrom, adv.CAFrom)})
		return &kliqo0x.IdentityResponse{Namespace: ns, Certificate: certPEM, APIServerURL: adv.URL, APIServerCA: adv.CA}, nil
	}
	if !o.Reissue {
		return nil, alreadyIssuedError(ctx, o, req.ConsumerID)
	}
	if err := deleteProviderIdentity(ctx, o.Provider, req.ConsumerID, sink); err != nil {
		return nil, err
	}
	return requestIdentity(ctx, client, req)
}

// requestIdentity sends the identity request, again while the provider
// answers 403 `Namespace "…" not found`: its auth server reads namespaces
// from an informer cache that may still hold a tenant namespace just
// deleted (by --reissue here, or by an unauthenticate right before). That
// answer comes after it signed the CSR but before it stored the
// certificate: a signed CSR object is left (unauthenticate removes CSRs by
// CN), no identity is recorded, so asking again is safe.
func requestIdentity(ctx context.Context, client *kliqo0x.AuthClient, req kliqo0x.IdentityRequest) (*kliqo0x.IdentityResponse, error) {
	var resp *kliqo0x.IdentityResponse
	var last error
	backoff := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 7}
	err := wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		resp, last = client.RequestIdentity(ctx, req)
		var authErr *kliqo0x.AuthError
		if errors.As(last, &authErr) && authErr.Status == 403 && strings.Contains(authErr.Body, "not found") {
			return false, nil
		}
		return true, last
	})
	if wait.Interrupted(err) && last != nil {
		return nil, last
	}
	return resp, err
}

// deleteProviderIdentity removes what the provider keeps for consumerID
// (tenant namespace with liqo-remote-certificate, CSRs, token Secret), so
// that it issues a new identity.
func deleteProviderIdentity(ctx context.Context, provider *kube.Cluster, consumerID string, sink handshake.Sink) error {
	objs, err := kliqo0x.On(provider).ProviderLeftovers(ctx, consumerID)
	if err != nil {
		return step.Scoped(handshake.Remote, err)
	}
	changes, err := kliqo0x.On(provider).DeleteObjects(ctx, objs)
	for _, ch := range changes {
		sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: ch.String()})
	}
	if err != nil {
		return step.Scoped(handshake.Remote, err)
	}
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: "Deleted the identity the provider had issued to cluster " + consumerID + " (--reissue): asking again"})
	return nil
}

// alreadyIssuedError names the object the provider's admin deletes, and
// the option that lets this tool delete it.
func alreadyIssuedError(ctx context.Context, o Options, consumerID string) error {
	ns := ""
	if o.Provider != nil {
		if found, _, _, err := kliqo0x.On(o.Provider).IssuedCertificate(ctx, consumerID); err == nil {
			ns = found
		}
	}
	// Unknown namespace: found by its label (its name depends on the line and the name).
	where := "-n " + ns
	if ns == "" {
		where = `-n "$(kubectl get ns -l ` + kliqo0x.ClusterIDLabel + "=" + consumerID + ` -o jsonpath='{.items[0].metadata.name}')"`
	}
	how := "or give this tool the provider's kubeconfig (--remote-kubeconfig) and --reissue to let it delete it"
	if o.Provider != nil {
		how = "or run again with --reissue (the wizard's reissue choice) to let this tool delete it"
	}
	return &RefusedError{Refusal: kliqo0x.AlreadyIssued, Err: fmt.Errorf(
		"the provider already issued the one identity of cluster %s (Liqo 0.x never issues it twice): on the provider, `kubectl %s delete secret %s`, %s",
		consumerID, where, remoteCertificateSecret, how)}
}

// whoIs asks the provider who cfg is; when the provider's API server does
// not answer from here, the certificate says it (CN = user, O = group).
func whoIs(ctx context.Context, cfg *rest.Config, sink handshake.Sink) (string, []string) {
	if cfg == nil {
		return "", nil
	}
	c, err := kube.NewCluster(cfg, "")
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		var user string
		var groups []string
		if user, groups, err = c.WhoAmI(ctx); err == nil {
			return user, groups
		}
	}
	cert, perr := authcrypto.ParseCertificatePEM(cfg.CertData)
	if perr != nil {
		return "", nil
	}
	sink(handshake.Event{Kind: handshake.Note, Scope: handshake.Remote, Message: "The provider's API server " + cfg.Host +
		" does not answer from here (" + err.Error() + "): user and groups read from the certificate"})
	return cert.Subject.CommonName, append(append([]string{}, cert.Subject.Organization...), "system:authenticated")
}

func certificateTimes(certPEM []byte) (notBefore, notAfter time.Time) {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return time.Time{}, time.Time{}
	}
	return cert.NotBefore, cert.NotAfter
}

// ValidateClusterName checks the name this tool gives its cluster on
// a 0.x provider: a DNS label short enough for liqo-tenant-<name>-<6 hex>.
func ValidateClusterName(name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return fmt.Errorf("cluster name %q is not a DNS label (%s): use lowercase letters, digits and '-'", name, errs[0])
	}
	if len(name) > kliqo0x.MaxClusterNameLength {
		return fmt.Errorf("cluster name %q is %d characters: a Liqo 0.x provider takes at most %d", name, len(name), kliqo0x.MaxClusterNameLength)
	}
	return nil
}

// toolConsumerName is the name this tool gives its cluster on the
// provider: the one given, else the cluster-ID ConfigMap's CLUSTER_NAME when
// it fits, else the ID cut to the length a 0.x provider takes.
func toolConsumerName(ctx context.Context, consumer *kube.Cluster, consumerID, given string) (string, error) {
	if given != "" {
		return given, ValidateClusterName(given)
	}
	if cm, err := consumer.ClusterIDConfigMap(ctx); err == nil {
		if name := cm.Data[kliqo0x.ClusterNameKey]; name != "" && ValidateClusterName(name) == nil {
			return name, nil
		}
	}
	return DefaultClusterName(consumerID), nil
}

// DefaultClusterName derives a name from a cluster ID.
func DefaultClusterName(clusterID string) string {
	name := clusterID
	if len(name) > kliqo0x.MaxClusterNameLength {
		name = strings.TrimRight(name[:kliqo0x.MaxClusterNameLength], "-")
	}
	return name
}
