package main

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// probeTimeout bounds one probe (a request to the provider).
const probeTimeout = 10 * time.Second

// prober makes one authenticated request to the provider with each
// kubeconfig every interval (a SelfSubjectReview: any authenticated user
// may), with the certificate its Secret holds at that moment.
type prober struct {
	k        *kubeconfigs
	interval time.Duration

	total atomic.Int64
	mu    sync.Mutex
	// results are each kubeconfig's probes, in order.
	results map[string][]probeResult
}

// probeResult is one probe; whether a failure counts is decided at the
// end, against the fault windows.
type probeResult struct {
	key        string
	start, end time.Time
	err        string // "" = it authenticated
	certValid  bool   // the certificate it used was valid all along
	// refused: the provider did not authenticate the kubeconfig (401, a
	// TLS or x509 error), which no fault excuses; any other failure is the
	// provider being unavailable: refused connections, 429, 5xx, timeouts,
	// and 403 (a SelfSubjectReview is every authenticated user's right; a
	// kube-apiserver just restarted denies it until its RBAC cache synced).
	refused bool
}

// refusedKubeconfig tells whether err says the kubeconfig does not
// authenticate.
func refusedKubeconfig(err error) bool {
	msg := err.Error()
	return apierrors.IsUnauthorized(err) || strings.Contains(msg, "tls:") || strings.Contains(msg, "x509:")
}

func newProber(k *kubeconfigs, interval time.Duration) *prober {
	return &prober{k: k, interval: interval, results: map[string][]probeResult{}}
}

// run probes every kubeconfig, spread over the interval, until ctx ends.
func (p *prober) run(ctx context.Context) {
	keys := p.k.keys()
	var wg sync.WaitGroup
	for i, key := range keys {
		offset := p.interval * time.Duration(i) / time.Duration(len(keys))
		wg.Go(func() {
			timer := time.NewTimer(offset)
			defer timer.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-timer.C:
				}
				p.probe(ctx, key)
				timer.Reset(p.interval)
			}
		})
	}
	wg.Wait()
}

func (p *prober) probe(ctx context.Context, key string) {
	client, cert := p.k.current(key)
	if client == nil {
		return
	}
	start := time.Now()
	reqCtx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := client.AuthenticationV1().SelfSubjectReviews().Create(reqCtx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	end := time.Now()
	if ctx.Err() != nil {
		return // the soak ended mid-probe
	}
	p.total.Add(1)
	r := probeResult{key: key, start: start, end: end, certValid: !start.Before(cert.NotBefore) && end.Before(cert.NotAfter)}
	if err != nil {
		r.err, r.refused = err.Error(), refusedKubeconfig(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.results[key] = append(p.results[key], r)
}

// probeAccount is what the probes found, against the windows where the
// provider's API server was down by design (each with its recovery: see
// recoveryMargin).
type probeAccount struct {
	total            int
	counted, excused []probeResult // failures that count, and the others
	// longestInvalid is the longest a kubeconfig failed (first counted
	// failure to the next probe that passed, or the end).
	longestInvalid time.Duration
}

func (p *prober) account(down []window, end time.Time) probeAccount {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := probeAccount{total: int(p.total.Load())}
	for _, results := range p.results {
		var failingSince time.Time
		for _, r := range results {
			switch {
			case r.err == "":
				if !failingSince.IsZero() {
					a.longestInvalid = max(a.longestInvalid, r.end.Sub(failingSince))
					failingSince = time.Time{}
				}
			case r.certValid && (r.refused || !overlaps(down, r.start, r.end)):
				a.counted = append(a.counted, r)
				if failingSince.IsZero() {
					failingSince = r.start
				}
			default:
				a.excused = append(a.excused, r)
			}
		}
		if !failingSince.IsZero() {
			a.longestInvalid = max(a.longestInvalid, end.Sub(failingSince))
		}
	}
	return a
}
