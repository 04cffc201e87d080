package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// repairStepTimeout bounds each wait of a Repair's handshake, as the
// commands' --step-timeout default does.
const repairStepTimeout = time.Minute

// reauthenticateRepair gives a pair whose control-plane certificate
// expired, was revoked or comes from a CA the provider no longer trusts a
// new one, keeping everything else: the provider's certificate cache goes
// and the Tenant's authParams are cleared, so that the provider signs the
// Tenant's CSR again with its current CA; then the handshake resumes as
// `authenticate` does and brings the new certificate to the Identity and
// its kubeconfig Secret. Unlike unauthenticate, no Identity, Tenant,
// binding or ResourceSlice is deleted. It needs both clusters: nil when
// doctor reads one side only (the check's Fix then says the commands).
func reauthenticateRepair(p *pair) *Repair {
	if !p.both() || p.provider.peer.Tenant == nil {
		return nil
	}
	t := p.provider.peer.Tenant
	ns := t.Namespace
	return &Repair{
		Plan: []string{
			fmt.Sprintf("delete Secret %s/%s on the provider %s (its cached certificate for consumer %s)", ns, kube.RemoteCertSecretName, p.provider.name(), p.consumer.name()),
			fmt.Sprintf("clear status.authParams of Tenant %s/%s on the provider, which signs the Tenant's CSR again", ns, t.Name),
			fmt.Sprintf("resume the handshake (as `liqo-auth-tui authenticate`): the consumer %s's Identity and kubeconfig Secret get the new certificate; its ResourceSlices stay", p.consumer.name()),
		},
		apply: func(ctx context.Context) error {
			if err := p.provider.cluster.DeleteSecret(ctx, ns, kube.RemoteCertSecretName); err != nil && !kube.IsNotFound(err) {
				return fmt.Errorf("deleting the provider's certificate cache %s/%s: %w", ns, kube.RemoteCertSecretName, err)
			}
			current, err := p.provider.cluster.Tenant(ctx, ns, t.Name)
			if err != nil {
				return fmt.Errorf("reading Tenant %s/%s: %w", ns, t.Name, err)
			}
			if current.Status.AuthParams != nil {
				current.Status.AuthParams = nil
				if _, err := p.provider.cluster.UpdateTenantStatus(ctx, current); err != nil {
					return fmt.Errorf("clearing the authParams of Tenant %s/%s: %w", ns, t.Name, err)
				}
			}
			return resumeHandshake(ctx, p, current.Spec.ProxyURL)
		},
	}
}

// resumeHandshakeRepair finishes a handshake stuck at a step, from where
// it stands, as `liqo-auth-tui authenticate` does (every step idempotent);
// nil without both clusters.
func resumeHandshakeRepair(p *pair) *Repair {
	if !p.both() {
		return nil
	}
	proxyURL := ""
	if t := p.provider.peer.Tenant; t != nil {
		proxyURL = t.Spec.ProxyURL // re-applying the Tenant keeps its proxy
	}
	return &Repair{
		Plan: []string{fmt.Sprintf("resume the handshake of consumer %s with provider %s from where it stopped (as `liqo-auth-tui authenticate`)",
			p.consumer.name(), p.provider.name())},
		apply: func(ctx context.Context) error { return resumeHandshake(ctx, p, proxyURL) },
	}
}

// resumeHandshake runs Authenticate on the pair, in-process controllers
// serving a side that has none.
func resumeHandshake(ctx context.Context, p *pair, proxyURL string) error {
	_, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: p.consumer.cluster, Provider: p.provider.cluster, ProxyURL: proxyURL,
		StepTimeout: repairStepTimeout}, nil)
	return err
}

// reauthenticationFix is the re-authentication by commands (losing the
// ResourceSlices, which the Repair keeps): unauthenticate keeps the
// provider's certificate cache, which authenticate would hand out again
// (expired, or from the CA it no longer trusts), so it goes too; after a
// key change (newKey) so does the consumer's signed nonce, signed with
// the old key, and the cache, made for the old key's CSR, would be
// refused anyway.
func reauthenticationFix(p *pair, newKey bool) string {
	cmds := []string{
		bothSidesCommand("unauthenticate"),
		p.provider.on("kubectl delete secret " + kube.RemoteCertSecretName + " -n " + kube.TenantNamespaceName(p.consumer.name())),
	}
	if newKey {
		cmds = append(cmds, p.consumer.on("kubectl delete secret "+kube.SignedNonceSecretName+" -n "+kube.TenantNamespaceName(p.provider.name())))
	}
	return strings.Join(append(cmds, bothSidesCommand("authenticate")), " && ")
}
