package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// kubeconfigs follows every consumer's kubeconfig Secrets (control plane
// and slice) through their informers: each certificate they held and when
// it came, which is what renewals due, done and expired are counted from.
type kubeconfigs struct {
	mu      sync.Mutex
	byKey   map[string]*kubeconfig // consumer/secret
	changed chan struct{}          // closed and replaced on every new certificate
}

type kubeconfig struct {
	key    string
	client kubernetes.Interface // of the current certificate
	certs  []certSeen           // in the order the Secret held them
}

type certSeen struct {
	cert *x509.Certificate
	at   time.Time // when the Secret was seen holding it
}

func newKubeconfigs() *kubeconfigs {
	return &kubeconfigs{byKey: map[string]*kubeconfig{}, changed: make(chan struct{})}
}

// follow watches the kubeconfig Secrets of one consumer until ctx ends.
func (k *kubeconfigs) follow(ctx context.Context, c *consumer) error {
	secrets := c.admin.Kube.CoreV1().Secrets(kube.TenantNamespaceName(providerID))
	return runInformer(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.BySelector(kube.IdentityTypeLabel)), &corev1.Secret{},
		func(obj any) {
			if s, ok := obj.(*corev1.Secret); ok && len(s.Data[kube.KubeconfigField]) > 0 {
				k.seen(c.id+"/"+s.Name, s.Data[kube.KubeconfigField])
			}
		})
}

func (k *kubeconfigs) seen(key string, data []byte) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return
	}
	cert, err := authcrypto.ParseCertificatePEM(cfg.CertData)
	if err != nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	kc := k.byKey[key]
	if kc == nil {
		kc = &kubeconfig{key: key}
		k.byKey[key] = kc
	}
	if n := len(kc.certs); n > 0 {
		last := kc.certs[n-1].cert
		if bytes.Equal(last.Raw, cert.Raw) || !cert.NotAfter.After(last.NotAfter) {
			return // the same certificate, or an older one: no renewal
		}
	}
	cfg.Timeout = probeTimeout
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return
	}
	kc.client = client
	kc.certs = append(kc.certs, certSeen{cert: cert, at: time.Now()})
	close(k.changed)
	k.changed = make(chan struct{})
}

// current is a kubeconfig's client and certificate now.
func (k *kubeconfigs) current(key string) (kubernetes.Interface, *x509.Certificate) {
	k.mu.Lock()
	defer k.mu.Unlock()
	kc := k.byKey[key]
	if kc == nil || len(kc.certs) == 0 {
		return nil, nil
	}
	return kc.client, kc.certs[len(kc.certs)-1].cert
}

func (k *kubeconfigs) keys() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]string, 0, len(k.byKey))
	for key := range k.byKey {
		out = append(out, key)
	}
	sort.Strings(out)
	return out
}

// renewals is the account of the certificates whose renewal (their 2/3
// point) was due before end.
type renewals struct {
	due, done, expired, pending int
	// doneSince counts the renewals that came at or after since (the soak's
	// start): the ones the API requests of the soak paid for.
	doneSince int
	// longestExpired is the longest a kubeconfig held a dead certificate.
	longestExpired time.Duration
	// latest is the latest a renewal came after its 2/3 point.
	latest time.Duration
}

func (k *kubeconfigs) account(since, end, now time.Time) renewals {
	k.mu.Lock()
	defer k.mu.Unlock()
	var r renewals
	for _, kc := range k.byKey {
		for i, c := range kc.certs {
			if i > 0 && c.at.After(since) {
				r.doneSince++
			}
			renewAt := kube.RenewalTime(c.cert.NotBefore, c.cert.NotAfter)
			if renewAt.After(end) {
				continue
			}
			r.due++
			if i+1 < len(kc.certs) {
				next := kc.certs[i+1].at
				r.latest = max(r.latest, next.Sub(renewAt))
				if next.Before(c.cert.NotAfter) {
					r.done++
				} else {
					r.expired++
					r.longestExpired = max(r.longestExpired, next.Sub(c.cert.NotAfter))
				}
				continue
			}
			if now.Before(c.cert.NotAfter) {
				r.pending++
			} else {
				r.expired++
				r.longestExpired = max(r.longestExpired, now.Sub(c.cert.NotAfter))
			}
		}
	}
	return r
}

// settle waits until no renewal due before end is pending: each is done or
// its certificate expired (bounded by the expiry, so by the signing
// duration).
func (k *kubeconfigs) settle(ctx context.Context, end time.Time) {
	for {
		k.mu.Lock()
		changed := k.changed
		var earliest time.Time
		for _, kc := range k.byKey {
			c := kc.certs[len(kc.certs)-1].cert
			if kube.RenewalTime(c.NotBefore, c.NotAfter).After(end) || time.Now().After(c.NotAfter) {
				continue
			}
			if earliest.IsZero() || c.NotAfter.Before(earliest) {
				earliest = c.NotAfter
			}
		}
		k.mu.Unlock()
		if earliest.IsZero() {
			return
		}
		select {
		case <-changed:
		case <-time.After(time.Until(earliest) + time.Second):
		case <-ctx.Done():
			return
		}
	}
}
