package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// Renewal with a Liqo v1.0.x–v1.1.x provider, the consumer's side (protocol
// spec §10.2, §12).
//
// Those providers never renew by themselves: their consumers ask, with a
// Renew carrying a CSR made with the cluster key (no new key pair: the
// private key stays in authentication-keys) and the public key as PKIX DER,
// and the provider answers in the Renew's status. Their answer is the
// certificate they cached at the handshake (Secret liqo-remote-certificate
// in the consumer's tenant namespace, returned whatever the CSR): they sign
// anew only once that Secret is gone, so no consumer, Liqo's or ours, gets
// a new certificate from them before their administrator deletes it.
//
// This consumer cannot ask the provider its release (its control-plane user
// may only touch Renews, ResourceSlices and NamespaceMaps in its tenant
// namespace), so it judges by the outcome: a provider that renews by itself
// (v1.2+, or ours) does so from 2/3 of the validity, 2/3 + 1/15 at the
// latest (it looks again after 1.1 × the time left to the 2/3 point). If by
// 5/6 no newer certificate came back, or when the Identity carries
// liqo.io/renew=true, this consumer asks as a v1.0–v1.1 consumer does: in
// the permanent Renew of a ControlPlane Identity, in a Renew made for the
// time of the ask for a ResourceSlice Identity (whose new certificate comes
// back in the slice's status), and again at every round (askEvery) until a
// newer certificate comes: a v1.0–v1.1 provider looks at a Renew only when
// it changes. Once told (a Warning on the Identity at each round) the
// provider's administrator deletes the cache Secret, and the next ask gets
// a new certificate. A v1.2 provider ignores the CSR (and a slice's Renew).

// consumerAskPoint is when a consumer asks for the renewal itself: at 5/6
// of the validity, halfway from the 2/3 point to the expiry.
func consumerAskPoint(notBefore, notAfter time.Time) time.Time {
	return notAfter.Add(-notAfter.Sub(notBefore) / 6)
}

// askEvery is how often the ask is repeated: 1/48 of the validity, within
// [10 s, 10 min] (10 min for a year-long certificate).
func askEvery(validity time.Duration) time.Duration {
	return min(max(validity/48, 10*time.Second), 10*time.Minute)
}

// renewalAsk is this consumer's own ask for the renewal of an Identity.
type renewalAsk struct {
	forced   bool      // liqo.io/renew=true on the Identity
	round    time.Time // start of the current round; zero: not asking
	every    time.Duration
	notAfter time.Time // of the Identity's certificate; zero if unreadable
}

func (a renewalAsk) asking() bool { return !a.round.IsZero() }

// decideAsk says whether this consumer asks for the renewal of id itself,
// and when to look again.
func decideAsk(id *authv1beta1.Identity, now time.Time) (renewalAsk, time.Duration) {
	v := id.Annotations[kube.RenewAnnotation]
	ask := renewalAsk{forced: v == "true" || v == "True", every: askEvery(0)}
	var askAt time.Time
	if cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT); err == nil {
		ask.notAfter, ask.every = cert.NotAfter, askEvery(cert.NotAfter.Sub(cert.NotBefore))
		askAt = consumerAskPoint(cert.NotBefore, cert.NotAfter)
	} else if !ask.forced {
		return renewalAsk{}, 0 // nothing to time; apply reports a bad certificate
	}
	if !ask.forced && now.Before(askAt) {
		return renewalAsk{}, askAt.Sub(now) + time.Second
	}
	ask.round = now.Truncate(ask.every)
	return ask, ask.round.Add(ask.every).Sub(now) + time.Second
}

// askForRenewal puts into want what a Liqo v1.0–v1.1 consumer's Renew
// carries: a CSR made with the cluster key, byte for byte the Tenant's or
// the slice's (§5.4, §10.1: same key, same subject, deterministic for
// Ed25519 and RSA), so that a provider caching the certificate under it
// stays consistent with its Tenant or slice; the public key as PKIX DER;
// and the round of the ask. A CSR already there that still fits is kept
// (an ECDSA one differs at each signing).
func (r *renewer) askForRenewal(ctx context.Context, want, existing *authv1beta1.Renew, ask renewalAsk) error {
	key, _, err := r.c.PrivateKey(ctx)
	if err != nil {
		return err
	}
	me := want.Spec.ConsumerClusterID
	check := func(csr []byte) error { return authcrypto.CheckCSR(csr, me, key.Public()) }
	newCSR := func() ([]byte, error) { return authcrypto.NewCSR(key, me) }
	if ref := want.Spec.ResourceSliceRef; ref != nil {
		check = func(csr []byte) error { return authcrypto.CheckResourceSliceCSR(csr, ref.Name, me, key.Public()) }
		newCSR = func() ([]byte, error) { return authcrypto.NewResourceSliceCSR(key, ref.Name, me) }
	}
	csr := []byte(nil)
	if existing != nil && check(existing.Spec.CSR) == nil {
		csr = existing.Spec.CSR
	} else if csr, err = newCSR(); err != nil {
		return err
	}
	der, err := authcrypto.PublicKeyDER(key.Public())
	if err != nil {
		return err
	}
	want.Spec.CSR, want.Spec.PublicKey = csr, der
	want.Annotations = map[string]string{kube.RenewAskedAnnotation: ask.round.UTC().Format(time.RFC3339)}
	return nil
}

// reportAsk tells on the Identity that this consumer started asking, and,
// at each later round that finds the certificate not renewed, that the
// provider's answer brought none and what its administrator must do.
func (r *renewer) reportAsk(ctx context.Context, id *authv1beta1.Identity, renew *authv1beta1.Renew, previous string, ask renewalAsk, renewed bool) {
	current := ask.round.UTC().Format(time.RFC3339)
	if renewed || previous == current {
		return
	}
	provider, until := id.Spec.ClusterID, "unknown"
	if !ask.notAfter.IsZero() {
		until = ask.notAfter.UTC().Format(time.RFC3339)
	}
	if previous == "" {
		why := fmt.Sprintf("Provider %s has not renewed this certificate (valid until %s) by 5/6 of its validity, as Liqo v1.2 providers do by 2/3", provider, until)
		if ask.forced {
			why = fmt.Sprintf("%s=true: asking provider %s for a new certificate (this one is valid until %s)", kube.RenewAnnotation, provider, until)
		}
		klog.FromContext(ctx).Info("Asking the provider for a renewal", "identity", klog.KObj(id), "provider", provider, "forced", ask.forced, "notAfter", until)
		r.events.normal(ctx, id, ReasonRenewalAsked, why+fmt.Sprintf(": asking with a CSR in Renew %s, as Liqo v1.0 and v1.1 consumers do, every %s until a new certificate comes", renew.Name, ask.every))
		return
	}
	ns := kube.TenantNamespaceName(renew.Spec.ConsumerClusterID)
	if id.Spec.Namespace != "" {
		ns = id.Spec.Namespace
	}
	cache := kube.RemoteCertSecretName
	if ref := renew.Spec.ResourceSliceRef; ref != nil {
		cache = kube.ResourceSliceCertSecretName(ref.Name)
	}
	r.events.warning(ctx, id, ReasonCertificateNotRenewed, fmt.Sprintf(
		"Provider %s answered Renew %s without a new certificate (this one is valid until %s). "+
			"A Liqo v1.0 or v1.1 provider answers with the certificate it cached when it first signed: its administrator must delete Secret %s in namespace %s there, and the new certificate comes with the next ask (every %s). "+
			"A Liqo v1.2 provider, or liqo-auth-tui's, renews by itself, from 2/3 of the validity",
		provider, renew.Name, until, cache, ns, ask.every))
}
