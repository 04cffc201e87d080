package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/internal/access"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// The credentials checks' IDs.
const (
	reachableID   = "api-server-reachable"
	acceptedID    = "kubeconfig-accepted"
	permissionsID = "kubeconfig-permissions"
)

// checkCredentials: the consumer's kubeconfig Secret used as the consumer
// uses it, when doctor reads the consumer: does the advertised API server
// (and proxy) answer from here, does the provider accept the certificate
// (401: expired, another CA, revoked), may it do what Liqo needs (403:
// which binding is missing). From the provider alone, only its bindings.
func checkCredentials(ctx context.Context, d *run, p *pair) []Check {
	if p.row.Generation != handshake.GenerationV1 || p.row.Role == handshake.RoleUnknown {
		return nil
	}
	if p.consumer.read() && p.consumer.peer.Kubeconfig != nil {
		return kubeconfigChecks(ctx, d, p)
	}
	if c, ok := permissionsCheck(ctx, d, p, nil, ""); ok {
		return []Check{c}
	}
	return nil
}

// kubeconfigChecks reach the provider with the consumer's kubeconfig.
func kubeconfigChecks(ctx context.Context, d *run, p *pair) []Check {
	s := p.consumer.peer.Kubeconfig
	if _, ok := s.Labels[liqo0x.ClientLabel]; ok {
		return nil // an identity from a Liqo 0.x provider: the 0.x checks'
	}
	in := func(c Check) Check {
		c.Scope = p.consumer.scope
		return c
	}
	cfg, ns, err := access.OfSecret(s)
	if err != nil {
		return []Check{in(failed(acceptedID, "kubeconfig accepted by the provider", err.Error(), p.sendIdentity()))}
	}
	remote, err := kube.NewCluster(cfg, "")
	if err != nil {
		return []Check{in(failed(acceptedID, "kubeconfig accepted by the provider", err.Error(), p.sendIdentity()))}
	}
	dial, cancel := context.WithTimeout(ctx, d.dialTimeout())
	user, _, err := remote.WhoAmI(dial)
	cancel()
	var reach *kube.ReachError
	switch {
	case err == nil:
	case errors.As(err, &reach) && reach.Class == kube.FailureUnauthorized:
		out := []Check{in(reachablePassed(remote))}
		if c, ok := podReachCheck(ctx, p, cfg, s.Data[kube.KubeconfigField]); ok {
			out = append(out, in(c))
		}
		return append(out, in(unauthorizedCheck(ctx, d, p, cfg)))
	default:
		return []Check{in(unreachableCheck(p, remote, err))}
	}
	out := []Check{in(reachablePassed(remote))}
	if c, ok := podReachCheck(ctx, p, cfg, s.Data[kube.KubeconfigField]); ok {
		out = append(out, in(c))
	}
	out = append(out, in(passed(acceptedID, "kubeconfig accepted by the provider", "authenticated as "+user)))
	if c, ok := permissionsCheck(ctx, d, p, cfg, ns); ok {
		out = append(out, c)
	}
	return out
}

func reachablePassed(remote *kube.Cluster) Check {
	detail := remote.Server
	if remote.Proxy != "" {
		detail += " through the proxy " + remote.Proxy
	}
	return passed(reachableID, "advertised API server reachable", detail)
}

// unreachableCheck: the address the provider advertised (or the proxy on
// the way) does not answer from this machine.
func unreachableCheck(p *pair, remote *kube.Cluster, err error) Check {
	var reach *kube.ReachError
	if !errors.As(err, &reach) {
		reach = &kube.ReachError{Server: remote.Server, Proxy: remote.Proxy, Class: kube.FailureOther, Err: err}
	}
	via, fix := "", bothSidesCommand("authenticate")+" --api-server-override https://<address the consumer reaches>"
	if reach.Proxy != "" {
		via = " through the proxy " + reach.Proxy
	}
	if reach.Class == kube.FailureProxy {
		fix = bothSidesCommand("authenticate") + " --proxy-url http://<proxy the consumer reaches>"
	}
	why := kube.RootCause(reach.Err)
	if !strings.Contains(why, string(reach.Class)) {
		why = string(reach.Class) + ": " + why
	}
	return failed(reachableID, "advertised API server reachable",
		fmt.Sprintf("the API server %s that provider %s advertised does not answer from here%s: %s", reach.Server, p.provider.name(), via, why), fix)
}
