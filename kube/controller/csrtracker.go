package controller

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	certv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	certlisters "k8s.io/client-go/listers/certificates/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// csrBatchLabel groups the CSRs this controller issues, so that finished
// ones go away with one deletecollection instead of one delete each.
const csrBatchLabel = "auth.liqo-auth-tui.io/csr-batch"

// maxCSRBatch bounds a batch, that is the CSRs one deletecollection
// removes.
const maxCSRBatch = 256

// csrDeleteTimeout bounds a batch deletion made in the background.
const csrDeleteTimeout = 30 * time.Second

// csrTracker serves the certificate waits of the Tenant reconciler from the
// shared CSR informer (no watch per issuance) and deletes the CSRs it
// issued once their certificate is stored. Deleting is housekeeping, so it
// waits until no issuance is in flight: alone, a Tenant's CSR is deleted
// right after its certificate is stored; in a burst, the workers'
// issuances overlap and the CSRs are deleted in batches, one
// deletecollection per maxCSRBatch CSRs: a full batch as soon as all its
// issuances ended, the last partial one when the burst is over. So a long
// burst (10,000 Tenants) pays one request per batch, not one per CSR, and
// the CSR cleaner leaves the tracker's pending batches alone.
type csrTracker struct {
	c      *kube.Cluster
	lister certlisters.CertificateSigningRequestLister
	index  cache.Indexer // the same CSRs, with byRequest; nil: nothing is reused
	keep   bool          // Options.KeepCSRs: nothing is deleted

	mu       sync.Mutex
	waiters  map[string]map[chan struct{}]struct{} // by CSR name
	run      string                                // random, per Manager run
	seq      int
	inflight int         // issuances under way
	open     *csrBatch   // the batch new issuances join
	pending  []*csrBatch // batches waiting for an idle moment, open included
	deleting sync.WaitGroup
}

type csrBatch struct {
	id      string
	size    int
	ended   int      // issuances of the batch that finished
	names   []string // for the fallback, one delete each
	adopted []string // reused from an earlier run: another batch label, one delete each
	left    []string // given up as the run stops: kept for the run that takes over
}

func newCSRTracker(c *kube.Cluster, lister certlisters.CertificateSigningRequestLister, index cache.Indexer, keep bool) *csrTracker {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &csrTracker{c: c, lister: lister, index: index, keep: keep, waiters: map[string]map[chan struct{}]struct{}{}, run: hex.EncodeToString(b)}
}

// handler wakes the waiters of a CSR on each of its events.
func (t *csrTracker) handler() cache.ResourceEventHandler {
	wake := func(obj any) {
		o := objectMeta(obj)
		if o == nil {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		for ch := range t.waiters[o.GetName()] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: wake, UpdateFunc: func(_, cur any) { wake(cur) }, DeleteFunc: wake}
}

// wait returns the CSR once signed (kube.CSRRequest.Wait), bounded by ctx.
func (t *csrTracker) wait(ctx context.Context, name string) (*certv1.CertificateSigningRequest, error) {
	ch := make(chan struct{}, 1)
	t.mu.Lock()
	if t.waiters[name] == nil {
		t.waiters[name] = map[chan struct{}]struct{}{}
	}
	t.waiters[name][ch] = struct{}{}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.waiters[name], ch)
		if len(t.waiters[name]) == 0 {
			delete(t.waiters, name)
		}
		t.mu.Unlock()
	}()
	for {
		// Registered first, then looked at: no event is missed.
		if csr, err := t.lister.Get(name); err == nil {
			signed, err := kube.CSRSigned(csr)
			if err != nil {
				return nil, err
			}
			if signed {
				return csr, nil
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %s", kube.ErrWaitTimeout, kube.CSRWaitWhat(name))
		}
	}
}

// begin registers an issuance and returns the labels of its CSR.
func (t *csrTracker) begin() (*csrBatch, map[string]string) {
	l := map[string]string{kube.RemoteTenantCSRLabel: "true"}
	if t.keep {
		return nil, l
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open == nil || t.open.size >= maxCSRBatch {
		t.seq++
		t.open = &csrBatch{id: t.run + "-" + strconv.Itoa(t.seq)}
		t.pending = append(t.pending, t.open)
	}
	b := t.open
	b.size++
	t.inflight++
	l[csrBatchLabel] = b.id
	return b, l
}

// created records the name of a batch's CSR.
func (t *csrTracker) created(b *csrBatch, name string) {
	if b == nil {
		return
	}
	t.mu.Lock()
	b.names = append(b.names, name)
	t.mu.Unlock()
}

// finish ends an issuance (its certificate stored, or given up): the last
// one in flight deletes the CSRs of the pending batches.
func (t *csrTracker) finish(ctx context.Context, b *csrBatch) {
	if b == nil {
		return
	}
	t.mu.Lock()
	t.inflight--
	b.ended++
	var done []*csrBatch
	switch {
	case t.inflight == 0:
		done, t.pending, t.open = t.pending, nil, nil // later issuances start a new batch
	case b.size >= maxCSRBatch && b.ended == b.size: // full (no issuance joins it any more) and over
		done = []*csrBatch{b}
		t.pending = slices.DeleteFunc(t.pending, func(p *csrBatch) bool { return p == b })
	}
	t.mu.Unlock()
	for _, b := range done {
		t.delete(ctx, b)
	}
}

// leave keeps the named CSR when b's CSRs are deleted: its issuance was
// given up because the run is stopping (a replica losing its Pod), and the
// run that takes over (another replica, or this one started again) reuses
// it instead of having a second certificate signed for the same request.
func (t *csrTracker) leave(b *csrBatch, name string) {
	if b == nil {
		return
	}
	t.mu.Lock()
	b.left = append(b.left, name)
	t.mu.Unlock()
}

// pendingDeletion tells whether csr belongs to a batch the tracker will delete.
func (t *csrTracker) pendingDeletion(csr *certv1.CertificateSigningRequest) bool {
	id, ok := csr.Labels[csrBatchLabel]
	if !ok {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.ContainsFunc(t.pending, func(b *csrBatch) bool { return b.id == id })
}

// waited tells whether an issuance waits for the named CSR's certificate.
func (t *csrTracker) waited(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.waiters[name]) > 0
}

// adopted records the name of a CSR an issuance of the batch reused.
func (t *csrTracker) adopted(b *csrBatch, name string) {
	if b == nil {
		return
	}
	t.mu.Lock()
	b.adopted = append(b.adopted, name)
	t.mu.Unlock()
}

// reusable returns a CSR made earlier for request, by a run killed or
// stopped before it stored the certificate, that can still give it: same
// request, signer and usages, not refused, and either unsigned or signed
// with a certificate not yet due for renewal. Nil: none, create one.
func (t *csrTracker) reusable(request []byte, now time.Time) *certv1.CertificateSigningRequest {
	if t.index == nil {
		return nil
	}
	objs, err := t.index.ByIndex(byRequest, requestDigest(request))
	if err != nil {
		return nil
	}
	for _, obj := range objs {
		csr, ok := obj.(*certv1.CertificateSigningRequest)
		if !ok || csr.DeletionTimestamp != nil || !bytes.Equal(csr.Spec.Request, request) ||
			csr.Spec.SignerName != kube.KubeAPIServerClientSignerName || csr.Spec.ExpirationSeconds != nil ||
			!slices.Equal(csr.Spec.Usages, tenantCSRUsages) {
			continue
		}
		signed, err := kube.CSRSigned(csr)
		if err != nil {
			continue // denied or failed
		}
		if signed {
			if due, _, err := renewalDue(csr.Status.Certificate, now); err != nil || due {
				continue
			}
		}
		return csr
	}
	return nil
}

// tenantCSRUsages are the usages kube.IssueCertificate asks for.
var tenantCSRUsages = []certv1.KeyUsage{certv1.UsageDigitalSignature, certv1.UsageKeyEncipherment, certv1.UsageClientAuth}

// byRequest indexes CSRs by a digest of their PKCS#10 request, to find the
// one an interrupted run made for a Tenant.
const byRequest = "request"

var byRequestIndexers = cache.Indexers{byRequest: func(obj any) ([]string, error) {
	if csr, ok := obj.(*certv1.CertificateSigningRequest); ok {
		return []string{requestDigest(csr.Spec.Request)}, nil
	}
	return nil, nil
}}

func requestDigest(request []byte) string {
	sum := sha256.Sum256(request)
	return hex.EncodeToString(sum[:])
}

// flush waits for the batch deletions under way (the run is ending).
func (t *csrTracker) flush() { t.deleting.Wait() }

// delete removes a batch's CSRs: a single one at once (a lone handshake
// finds its CSR gone with its status), several in one request in the
// background. Failing to is not fatal: the CSR cleaner and the API server
// collect leftovers.
func (t *csrTracker) delete(ctx context.Context, b *csrBatch) {
	t.mu.Lock()
	left := slices.Clone(b.left)
	t.mu.Unlock()
	if len(left) > 0 { // one by one: the batch label also selects what is left
		kept := func(name string) bool { return slices.Contains(left, name) }
		names := append(slices.DeleteFunc(slices.Clone(b.names), kept), slices.DeleteFunc(slices.Clone(b.adopted), kept)...)
		t.deleting.Go(func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), csrDeleteTimeout)
			defer cancel()
			t.deleteEach(ctx, names)
		})
		return
	}
	switch len(b.names) + len(b.adopted) {
	case 0:
		return
	case 1:
		t.deleteEach(ctx, append(b.names, b.adopted...))
		return
	}
	t.deleting.Go(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), csrDeleteTimeout)
		defer cancel()
		t.deleteEach(ctx, b.adopted)
		if len(b.names) == 0 {
			return
		}
		sel := labels.Set{kube.RemoteTenantCSRLabel: "true", csrBatchLabel: b.id}.String()
		err := t.c.Kube.CertificatesV1().CertificateSigningRequests().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel})
		if err == nil {
			return
		}
		klog.FromContext(ctx).V(4).Info("Deleting a batch of CSRs failed, deleting them one by one", "batch", b.id, "err", err.Error())
		t.deleteEach(ctx, b.names)
	})
}

func (t *csrTracker) deleteEach(ctx context.Context, names []string) {
	csrs := t.c.Kube.CertificatesV1().CertificateSigningRequests()
	for _, name := range names {
		if err := csrs.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !kube.IsNotFound(err) {
			klog.FromContext(ctx).V(4).Info("Deleting a CSR failed", "csr", name, "err", err.Error())
		}
	}
}
