package doctor

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// The provider's side of a 0.x peering: whether its auth server checks
// tokens, and the certificate it issued against the one the consumer holds.

// liqo0xAuthFacts is what doctor learned of one auth server.
type liqo0xAuthFacts struct {
	url string // "" when read from the Deployment
	// disabled: it accepts any token; known: the answer is known.
	disabled, known bool
	// fix re-enables it (the chart's value, "" when the auth server does
	// not come from a Deployment or its version is unknown).
	fix string
}

// liqo0xMemo keeps per run what several rows would ask again: a provider
// with a thousand consumers has its auth server probed once.
type liqo0xMemo struct {
	providers map[handshake.Scope]liqo0xAuthFacts
	urls      map[string]liqo0xAuthFacts
}

// liqo0xHelmRepo is where Liqo's chart comes from (liqoctl install's).
const liqo0xHelmRepo = "https://helm.liqo.io"

// liqo0xAuthenticationCheck: a provider whose auth server accepts any token
// gives an identity to anyone who reaches it (§2.7). Asked of the
// provider's liqo-auth Deployment, else of its advertised auth server, and
// of the auth server the consumer's ForeignCluster uses; failed when one
// accepts any token, omitted when neither side can tell.
func (p *pair) liqo0xAuthenticationCheck(ctx context.Context, d *run) *Check {
	var facts, provider liqo0xAuthFacts
	if p.provider.read() {
		provider = d.liqo0xProviderFacts(ctx, p.provider)
		facts = provider
	}
	if p.consumer.read() && p.consumer.liqo0x.foreignCluster != nil {
		if url, insecure := liqo0x.ForeignClusterAuthURL(p.consumer.liqo0x.foreignCluster); url != "" {
			// The server this consumer uses, unless the provider's is open.
			if used := d.liqo0xProbe(ctx, url, insecure); used.known && !(provider.known && provider.disabled) {
				facts = used
			}
		}
	}
	if !facts.known {
		return nil
	}
	const title = "Liqo 0.x authentication enabled"
	if !facts.disabled {
		detail := "Deployment liqo-auth runs with authentication enabled"
		if facts.url != "" {
			detail = "the auth server at " + facts.url + " refused a random token"
		}
		c := passed(checkLiqo0xAuthentication, title, detail)
		return &c
	}
	cause := handshake.AuthenticationDisabledWarning(facts.url)
	if provider.fix == "" {
		cause += "; the provider's admin restarts its auth server with --enable-authentication=true"
	}
	c := failed(checkLiqo0xAuthentication, title, cause, provider.fix)
	return &c
}

// liqo0xProviderFacts: the liqo-auth Deployment's flag when there is one,
// else a probe of the auth server the provider advertises.
func (d *run) liqo0xProviderFacts(ctx context.Context, s *side) liqo0xAuthFacts {
	if facts, ok := d.liqo0x.providers[s.scope]; ok {
		return facts
	}
	var facts liqo0xAuthFacts
	deploy, err := s.cluster.Deployment(ctx, kube.Liqo0xAuthName)
	switch {
	case err == nil:
		facts = liqo0xAuthFacts{known: true, disabled: kube.Liqo0xAuthenticationDisabled(deploy)}
		if v := s.objects.Release.Version; v != "" && facts.disabled {
			facts.fix = s.on(fmt.Sprintf("helm upgrade liqo liqo --repo %s --namespace %s --reuse-values --version %s --set auth.config.enableAuthentication=true",
				liqo0xHelmRepo, s.cluster.Namespace, v))
		}
	default:
		// Not from the chart, or not readable: ask the auth server itself.
		if url, err := liqo0x.On(s.cluster).AuthServerURL(ctx); err == nil {
			facts = d.liqo0xProbe(ctx, url, true)
		}
	}
	if d.liqo0x.providers == nil {
		d.liqo0x.providers = map[handshake.Scope]liqo0xAuthFacts{}
	}
	d.liqo0x.providers[s.scope] = facts
	return facts
}

// liqo0xProbe asks the auth server at url whether it accepts a random
// token, writing nothing there (a request no provider can fulfil), within
// the run's reach timeout.
func (d *run) liqo0xProbe(ctx context.Context, url string, insecure bool) liqo0xAuthFacts {
	if facts, ok := d.liqo0x.urls[url]; ok {
		return facts
	}
	timeout := d.opts.ReachTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	facts := liqo0xAuthFacts{url: url}
	if client, err := liqo0x.NewAuthClient(liqo0x.AuthOptions{URL: url, InsecureSkipTLSVerify: insecure, Timeout: timeout}); err == nil {
		disabled, err := client.AuthenticationDisabled(ctx)
		facts.disabled, facts.known = disabled, err == nil
	}
	if d.liqo0x.urls == nil {
		d.liqo0x.urls = map[string]liqo0xAuthFacts{}
	}
	d.liqo0x.urls[url] = facts
	return facts
}

// liqo0xIssuedCheck: the certificate the provider issued to the consumer (one
// per cluster ID) is the one the consumer holds. nil when the provider was
// not read, or neither side holds one, or another check already says why
// the consumer holds none.
func (p *pair) liqo0xIssuedCheck() *Check {
	if !p.provider.read() {
		return nil
	}
	const title = "certificate the Liqo 0.x provider issued"
	issued := p.provider.liqo0x.issuedCertificate()
	if !p.consumer.read() {
		if issued == nil {
			return nil
		}
		c := passed(checkLiqo0xIssued, title, fmt.Sprintf("Secret %s/%s, valid until %s (the consumer was not read: give --remote-kubeconfig to compare)",
			p.provider.liqo0x.issued.Namespace, p.provider.liqo0x.issued.Name, handshake.TimeText(issued.NotAfter)))
		return &c
	}
	held, secret := p.consumer.liqo0x.certificate()
	switch {
	case issued != nil && held != nil && bytes.Equal(issued.Raw, held.Raw):
		c := passed(checkLiqo0xIssued, title, fmt.Sprintf("the consumer holds it (Secret %s/%s), valid until %s",
			secret.Namespace, secret.Name, handshake.TimeText(issued.NotAfter)))
		return &c
	case issued != nil && held != nil:
		c := failed(checkLiqo0xIssued, title, fmt.Sprintf(
			"the consumer's certificate (Secret %s/%s) is not the one the provider last issued to cluster ID %s (Secret %s/%s): the provider issued another since (to a re-installed cluster or another with the same ID)",
			secret.Namespace, secret.Name, p.consumer.id, p.provider.liqo0x.issued.Namespace, p.provider.liqo0x.issued.Name),
			p.deleteSecretCommand(secret)+" && "+p.reissueCommand())
		return &c
	case issued != nil:
		if p.consumer.liqo0x.established() || p.consumer.liqo0x.foreignCluster != nil && liqo0x.AuthRefused(liqo0x.ForeignClusterAuth(p.consumer.liqo0x.foreignCluster).Status) {
			return nil // the consumer's own checks say why it holds none
		}
		c := failed(checkLiqo0xIssued, title, fmt.Sprintf(
			"the provider issued the one identity of cluster ID %s (Secret %s/%s) but the consumer holds none: its next request is refused until the provider deletes that Secret (--reissue does)",
			p.consumer.id, p.provider.liqo0x.issued.Namespace, p.provider.liqo0x.issued.Name),
			p.reissueCommand())
		return &c
	case held != nil && p.provider.objects.Release.Line != peerinfo.V03:
		// v0.3 does not label liqo-remote-certificate: the lists miss it.
		c := failed(checkLiqo0xIssued, title, fmt.Sprintf(
			"the provider holds no certificate issued to cluster ID %s (its tenant namespace or %s was deleted): the consumer's identity (Secret %s/%s) is authorized for nothing there",
			p.consumer.id, kube.RemoteCertSecretName, secret.Namespace, secret.Name),
			p.deleteSecretCommand(secret)+" && "+p.consumer.on("liqo-auth-tui authenticate --remote-kubeconfig <provider's kubeconfig>"))
		return &c
	}
	return nil
}
