package flows

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
)

// The credentials checks' IDs.
const (
	reachableID   = "api-server-reachable"
	acceptedID    = "kubeconfig-accepted"
	permissionsID = "kubeconfig-permissions"
)

// verifyTimeout bounds the access reviews of a kubeconfig that answered.
const verifyTimeout = 30 * time.Second

// checkCredentials: the consumer's kubeconfig Secret used as the consumer
// uses it, when doctor reads the consumer: does the advertised API server
// (and proxy) answer from here, does the provider accept the certificate
// (401: expired, another CA, revoked), may it do what Liqo needs (403:
// which binding is missing). From the provider alone, only its bindings.
func checkCredentials(ctx context.Context, d *doctorRun, row PeeringRow) []Check {
	if row.Generation != GenerationV1 || row.Role == handshake.RoleUnknown {
		return nil
	}
	p := d.pairOf(row)
	if p.consumer != nil && p.consumerObjects.kubeconfig != nil {
		return kubeconfigChecks(ctx, d, row, p)
	}
	if c, ok := permissionsCheck(ctx, d, p, nil, ""); ok {
		return []Check{c}
	}
	return nil
}

// kubeconfigChecks reach the provider with the consumer's kubeconfig.
func kubeconfigChecks(ctx context.Context, d *doctorRun, row PeeringRow, p doctorPair) []Check {
	s := p.consumerObjects.kubeconfig
	if _, ok := s.Labels[liqo0x.ClientLabel]; ok {
		return nil // an identity from a Liqo 0.x provider: the 0.x checks'
	}
	in := func(c Check) Check {
		c.Scope = p.consumerScope
		return c
	}
	cfg, ns, err := secretAccess(s)
	if err != nil {
		return []Check{in(failed(acceptedID, "kubeconfig accepted by the provider", err.Error(), handshakeCommands{p}.identity()))}
	}
	remote, err := kube.NewCluster(cfg, "")
	if err != nil {
		return []Check{in(failed(acceptedID, "kubeconfig accepted by the provider", err.Error(), handshakeCommands{p}.identity()))}
	}
	dial, cancel := context.WithTimeout(ctx, d.dialTimeout())
	user, _, err := remote.WhoAmI(dial)
	cancel()
	var reach *kube.ReachError
	switch {
	case err == nil:
	case errors.As(err, &reach) && reach.Class == kube.FailureUnauthorized:
		return []Check{in(reachablePassed(remote)), in(unauthorizedCheck(ctx, d, row, p, cfg))}
	default:
		return []Check{in(unreachableCheck(p, remote, err))}
	}
	out := []Check{in(reachablePassed(remote)), in(passed(acceptedID, "kubeconfig accepted by the provider", "authenticated as "+user))}
	if c, ok := permissionsCheck(ctx, d, p, cfg, ns); ok {
		out = append(out, c)
	}
	return out
}

func reachablePassed(remote *Cluster) Check {
	detail := remote.Server
	if remote.Proxy != "" {
		detail += " through the proxy " + remote.Proxy
	}
	return passed(reachableID, "advertised API server reachable", detail)
}

// unreachableCheck: the address the provider advertised (or the proxy on
// the way) does not answer from this machine.
func unreachableCheck(p doctorPair, remote *Cluster, err error) Check {
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
		fmt.Sprintf("the API server %s that provider %s advertised does not answer from here%s: %s", reach.Server, p.providerID, via, why), fix)
}

// unauthorizedCheck says why the provider refuses the certificate (401):
// expired, signed by another CA than the one the provider trusts now, or
// valid and still refused (revoked).
func unauthorizedCheck(ctx context.Context, d *doctorRun, row PeeringRow, p doctorPair, cfg *rest.Config) Check {
	cause := "the provider refuses the kubeconfig's certificate (401): " + refusedCertificateReason(ctx, d, p, cfg.CertData)
	c := failed(acceptedID, "kubeconfig accepted by the provider", cause, reauthenticationFix(p, false))
	c.Repair = reauthenticateRepair(d, row)
	return c
}

// refusedCertificateReason tells a refused certificate's likely cause.
func refusedCertificateReason(ctx context.Context, d *doctorRun, p doctorPair, certPEM []byte) string {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return "its client certificate is unreadable: " + err.Error()
	}
	if !d.now.Before(cert.NotAfter) {
		return "the certificate expired at " + timeText(cert.NotAfter)
	}
	if p.provider == nil {
		return "the certificate is valid until " + timeText(cert.NotAfter) +
			" yet refused: signed by a CA the provider no longer trusts (rotated?) or revoked; --remote-kubeconfig tells which"
	}
	trusted, err := clientCAVerifies(ctx, p.provider, cert, d.now)
	switch {
	case err != nil:
		return "the certificate is valid until " + timeText(cert.NotAfter) + " yet refused (the provider's client CA could not be read: " + err.Error() + ")"
	case !trusted:
		return fmt.Sprintf("the certificate was signed by %q, not by the CA the provider trusts now: wrong CA, or the provider's CA was rotated", cert.Issuer.CommonName)
	}
	return "the certificate is valid until " + timeText(cert.NotAfter) + " and signed by the provider's CA, yet refused: revoked"
}

// permissionsCheck: what the consumer's kubeconfig (cfg, when read) may
// do in its tenant namespace ns on the provider, and which of the
// bindings the provider makes per Tenant (§6.5) are missing there (when
// the provider is read). A Drained Tenant has none by design.
func permissionsCheck(ctx context.Context, d *doctorRun, p doctorPair, cfg *rest.Config, ns string) (Check, bool) {
	const title = "kubeconfig permissions on the provider"
	var t *authv1beta1.Tenant
	if po := p.providerObjects; po != nil {
		t = po.tenant
	}
	if t != nil && (!tenantAccepted(t) || t.Spec.TenantCondition == authv1beta1.TenantConditionDrained || t.DeletionTimestamp != nil) {
		return Check{}, false
	}
	var denied []string
	if cfg != nil {
		vctx, cancel := context.WithTimeout(ctx, verifyTimeout)
		v, err := verifyConfig(vctx, cfg, ns, checks)
		cancel()
		if err != nil {
			return Check{}, false // it answered a moment ago: the reach checks say the rest
		}
		denied = deniedOfGranted(v, ns)
	}
	var missing []string
	if p.provider != nil && t != nil {
		var err error
		if missing, err = d.missingBindings(ctx, p.provider, t); err != nil {
			c := failed(permissionsID, title, "reading the consumer's bindings on the provider: "+err.Error(), onProvider(p.providerScope, "liqo-auth-tui init"))
			c.Scope = p.providerScope
			return c, true
		}
	}
	if cfg == nil && (p.provider == nil || t == nil) {
		return Check{}, false // neither side's view of it was read
	}
	if len(denied) == 0 && len(missing) == 0 {
		detail := "the bindings of consumer " + p.consumerID + " are in place"
		if cfg != nil {
			detail = "allowed what Liqo's remote-controlplane role grants in " + ns
		}
		return passedIn(p.providerScope, permissionsID, title, detail), true
	}
	c := failed(permissionsID, title, permissionsCause(p, ns, denied, missing), bothSidesCommand("authenticate"))
	c.Scope = p.providerScope
	if len(missing) > 0 {
		c.Repair = rebindRepair(p, t, missing)
	}
	return c, true
}

// permissionsCause names what is refused (403) and the binding that
// should grant it.
func permissionsCause(p doctorPair, ns string, denied, missing []string) string {
	refused := ""
	if len(denied) > 0 {
		refused = "the provider refuses " + denied[0]
		if len(denied) > 1 {
			refused += fmt.Sprintf(" (and %d more)", len(denied)-1)
		}
		refused += " to consumer " + p.consumerID + " (403)"
	}
	switch {
	case len(missing) > 0 && refused != "":
		return refused + ": missing on the provider: " + joinNames(missing)
	case len(missing) > 0:
		return "missing on the provider: " + joinNames(missing) + ": consumer " + p.consumerID + "'s kubeconfig is refused what they grant (403)"
	case p.provider == nil:
		return refused + ": the RoleBinding " + kube.RoleBindingName(kube.RemoteControlPlaneClusterRole) + " in " + ns + " on the provider should grant it"
	}
	return refused + ", though its bindings exist: the ClusterRole " + kube.RemoteControlPlaneClusterRole + " lacks the rule"
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// deniedOfGranted are the checks Liqo's remote-controlplane role grants
// in the tenant namespace that the provider denied.
func deniedOfGranted(v *Verification, ns string) []string {
	deniedSet := map[string]bool{}
	for _, s := range v.Denied {
		deniedSet[s] = true
	}
	var out []string
	for _, a := range checks {
		if grantedToConsumer(a) && deniedSet[a.String(ns)] {
			out = append(out, a.String(ns))
		}
	}
	return out
}

// grantedToConsumer: the accesses of checks the control-plane role grants.
func grantedToConsumer(a accessCheck) bool {
	if a.namespace != tenantNS {
		return false
	}
	switch a.resource {
	case "resourceslices", "renews", "namespacemaps":
		return true
	}
	return false
}

// rebindRepair re-creates the consumer's bindings with the functions the
// provider's Tenant reconciler uses.
func rebindRepair(p doctorPair, t *authv1beta1.Tenant, missing []string) *Repair {
	var plan []string
	for _, m := range missing {
		plan = append(plan, "create "+m+" on the provider "+p.providerID+" (for consumer "+p.consumerID+")")
	}
	return &Repair{Plan: plan, apply: func(ctx context.Context) error {
		current, err := p.provider.Liqo.Tenants(t.Namespace).Get(ctx, t.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading Tenant %s/%s: %w", t.Namespace, t.Name, err)
		}
		roles, err := p.provider.TenantRoles(ctx)
		if err != nil {
			return err
		}
		if _, err := p.provider.BindTenantNamespace(ctx, current, current.Status.TenantNamespace, roles.ControlPlane); err != nil {
			return err
		}
		_, err = p.provider.BindTenantClusterWide(ctx, current.Spec.ClusterID, roles.ClusterWide)
		return err
	}}
}

// The ConfigMap where kube-apiserver publishes the CA bundle it trusts for
// client certificates.
const (
	clientCAConfigMapNamespace = "kube-system"
	clientCAConfigMap          = "extension-apiserver-authentication"
	clientCAKey                = "client-ca-file"
)

// clientCAVerifies tells whether cert chains to a CA the provider's API
// server trusts for client certificates now.
func clientCAVerifies(ctx context.Context, provider *Cluster, cert *x509.Certificate, now time.Time) (bool, error) {
	cm, err := provider.Kube.CoreV1().ConfigMaps(clientCAConfigMapNamespace).Get(ctx, clientCAConfigMap, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data[clientCAKey])) {
		return false, fmt.Errorf("ConfigMap %s/%s holds no %s", clientCAConfigMapNamespace, clientCAConfigMap, clientCAKey)
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return err == nil, nil
}
