package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// sliceProvider answers the ResourceSlices consumers replicate to this
// provider (§10.1): it checks the slice's CSR against the consumer's
// Tenant, has it signed like the Tenant's (§6.3, cache Secret
// liqo-remote-certificate-<slice>), renews it at 2/3 of its validity, and
// decides the Authentication and Resources conditions.
type sliceProvider struct {
	c          *kube.Cluster
	o          Options
	adv        *advertiser
	events     *events
	slices     cache.Indexer // replicated ResourceSlices
	tenants    cache.Indexer // indexed byConsumer
	namespaces tenantNamespaces
	csrs       *csrTracker      // nil: each issuance watches its CSR
	now        func() time.Time // nil = time.Now
}

// sliceDecision is what the provider answers a slice. The conditions carry
// Liqo's reasons and messages; the why of a denial goes to the Events.
type sliceDecision struct {
	authStatus authv1beta1.ResourceSliceConditionStatus
	invalid    string                                   // why authentication is denied
	resStatus  authv1beta1.ResourceSliceConditionStatus // "" = leave it (plugins)
	resDenied  string                                   // why resources are denied
	resReason  string                                   // the Resources reason and message, "" = Liqo's for resStatus
	resMessage string
	authParams *authv1beta1.AuthParams // nil = leave status.authParams
	resources  corev1.ResourceList     // nil = leave status.resources
	offer      *sliceOffer             // nil = leave the offered classes and labels
	// requeueAfter is when the certificate is due for renewal.
	requeueAfter time.Duration
	renewed      bool
}

func (r *sliceProvider) sync(ctx context.Context, key string) (time.Duration, error) {
	obj, exists, err := r.slices.GetByKey(key)
	if err != nil || !exists {
		return 0, err // its certificate cache Secret stays, like Liqo's
	}
	rs := obj.(*authv1beta1.ResourceSlice).DeepCopy()
	consumerID := rs.Labels[kube.OriginIDLabel]
	if rs.DeletionTimestamp != nil || !kube.IsReplicatedSlice(rs) || consumerID == "" || len(rs.Spec.CSR) == 0 {
		return 0, nil
	}
	d, err := r.decide(ctx, rs, consumerID)
	if err != nil || d == nil {
		return 0, err
	}
	return d.requeueAfter, r.writeStatus(ctx, rs, d)
}

// decide checks the slice and, when it passes, obtains its certificate,
// then decides its resources. As in Liqo, an invalid slice has its
// Authentication denied (the authParams of an earlier pass stay) and its
// Resources still decided. Errors are retried and write nothing: unlike
// Liqo, which denies Authentication on a failed issuance and accepts it
// again at the retry, as a Liqo consumer then deletes the slice's
// Identity. nil is no decision at all (nothing written), as Liqo's
// provider does for a slice outside its consumer's tenant namespace.
func (r *sliceProvider) decide(ctx context.Context, rs *authv1beta1.ResourceSlice, consumerID string) (*sliceDecision, error) {
	if ok, err := r.inTenantNamespace(ctx, rs, consumerID); !ok {
		return nil, err
	}
	t, err := r.tenant(ctx, consumerID)
	if err != nil {
		return nil, err
	}
	d := &sliceDecision{authStatus: authv1beta1.ResourceSliceConditionAccepted}
	if d.invalid, err = invalidSlice(rs, t, consumerID); err != nil {
		return nil, err
	}
	if d.invalid != "" {
		d.authStatus = authv1beta1.ResourceSliceConditionDenied
	} else if err := r.authenticate(ctx, rs, t, consumerID, d); err != nil {
		return nil, err
	}
	if err := r.decideResources(ctx, rs, t, d); err != nil {
		return nil, err
	}
	return d, nil
}

// invalidSlice says why the slice fails the checks (§10.1), "" when it
// passes.
func invalidSlice(rs *authv1beta1.ResourceSlice, t *authv1beta1.Tenant, consumerID string) (string, error) {
	if id := rs.Spec.ConsumerClusterID; id != "" && id != consumerID {
		return fmt.Sprintf("spec.consumerClusterID %s is not the consumer it was replicated from (%s)", id, consumerID), nil
	}
	var pub any
	if t.Spec.AuthzPolicy != authv1beta1.TolerateNoHandshake {
		var err error
		if pub, err = authcrypto.ParsePublicKey(t.Spec.PublicKey); err != nil {
			return "", fmt.Errorf("parsing the public key of Tenant %s/%s: %w", t.Namespace, t.Name, err)
		}
	}
	if err := authcrypto.CheckResourceSliceCSR(rs.Spec.CSR, rs.Name, consumerID, pub); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

// authenticate obtains the slice's certificate and its authParams.
func (r *sliceProvider) authenticate(ctx context.Context, rs *authv1beta1.ResourceSlice, t *authv1beta1.Tenant, consumerID string, d *sliceDecision) error {
	cert, renewed, err := r.certificate(ctx, rs, consumerID)
	if err != nil {
		r.events.warning(ctx, rs, ReasonSliceCertificateFailed, err.Error())
		return err
	}
	if _, d.requeueAfter, err = renewalDue(cert, r.clock()); err != nil {
		return err
	}
	if d.authParams, err = r.adv.forTenant(ctx, t, cert); err != nil {
		r.events.warning(ctx, rs, ReasonSliceCertificateFailed, err.Error())
		return err
	}
	d.renewed = renewed
	return nil
}

// inTenantNamespace tells whether the slice is in its consumer's tenant
// namespace. As in Liqo, a missing one is an error (retried), and a slice
// elsewhere is left undecided, not denied; both are decided again when
// the consumer's tenant namespace appears or changes (wireSlicesProvider).
func (r *sliceProvider) inTenantNamespace(ctx context.Context, rs *authv1beta1.ResourceSlice, consumerID string) (bool, error) {
	ns, err := r.namespaces.get(ctx, consumerID)
	if err != nil {
		if kube.IsNotFound(err) {
			r.events.warning(ctx, rs, ReasonTenantNamespaceNotFound, fmt.Sprintf("Tenant namespace of cluster %s not found: %v", consumerID, err))
		}
		return false, fmt.Errorf("tenant namespace of consumer %s: %w", consumerID, err)
	}
	if ns.Name != rs.Namespace {
		r.events.warning(ctx, rs, ReasonWrongNamespace,
			fmt.Sprintf("ResourceSlice is not in the tenant namespace of cluster %s (%s): skipped", consumerID, ns.Name))
		return false, nil
	}
	return true, nil
}

// decideResources decides Resources as Liqo does, by the Tenant's
// condition: Drained denies them; Cordoned denies them to a slice not yet
// decided and leaves the others as they are; Active grants a slice of the
// default class (empty or "default") the defaults, then what it asks, on
// every pass, with the provider's offer (classes, labels), and leaves the
// other classes to plugins.
func (r *sliceProvider) decideResources(ctx context.Context, rs *authv1beta1.ResourceSlice, t *authv1beta1.Tenant, d *sliceDecision) error {
	switch t.Spec.TenantCondition {
	case authv1beta1.TenantConditionDrained:
		d.resStatus = authv1beta1.ResourceSliceConditionDenied
		d.resDenied = fmt.Sprintf("the Tenant of consumer %s is drained: it may neither use nor negotiate resources", t.Spec.ClusterID)
	case authv1beta1.TenantConditionCordoned:
		if kube.SliceConditionStatus(rs, authv1beta1.ResourceSliceConditionTypeResources) == "" {
			d.resStatus = authv1beta1.ResourceSliceConditionDenied
			d.resDenied = fmt.Sprintf("the Tenant of consumer %s is cordoned: no new resources", t.Spec.ClusterID)
		}
	default: // Active (the CRD's default)
		if rs.Spec.Class != "" && rs.Spec.Class != authv1beta1.ResourceSliceClassDefault {
			return nil
		}
		if r.o.DefaultSliceClassDisabled {
			d.resStatus = authv1beta1.ResourceSliceConditionDenied
			d.resReason, d.resMessage = kube.SliceDefaultClassDisabledReason, kube.SliceDefaultClassDisabledMessage
			d.resDenied = fmt.Sprintf("this provider grants no ResourceSlice of the default class (--%s=false): only its plugins' classes get resources", DefaultSliceClassEnabledFlag)
			return nil
		}
		offer, err := r.offer(ctx)
		if err != nil {
			r.events.warning(ctx, rs, ReasonStorageClassesFailed, err.Error())
			return err
		}
		d.offer = offer
		d.resources = grantedResources(rs.Status.Resources, r.o.DefaultNodeResources, rs.Spec.Resources)
		d.resStatus = authv1beta1.ResourceSliceConditionAccepted
	}
	return nil
}

// tenant finds the consumer's Tenant from the informer, else live.
func (r *sliceProvider) tenant(ctx context.Context, consumerID string) (*authv1beta1.Tenant, error) {
	if r.tenants != nil {
		if tenants := tenantsOfCluster(r.tenants, consumerID); len(tenants) == 1 {
			return tenants[0], nil
		}
	}
	t, err := r.c.TenantFor(ctx, "", consumerID)
	if err != nil {
		return nil, fmt.Errorf("finding the Tenant of consumer %s: %w", consumerID, err)
	}
	return t, nil
}

// certificate returns the slice's certificate: the one in its status while
// it is for this CSR and not due for renewal (nothing read), else the cached
// one, else a new one, stored in the cache Secret.
func (r *sliceProvider) certificate(ctx context.Context, rs *authv1beta1.ResourceSlice, consumerID string) (cert []byte, renewed bool, err error) {
	now := r.clock()
	var old []byte
	// renew: the status certificate, for this CSR or an earlier one, is
	// due; the cache is skipped and the CSR signed, as Liqo's
	// EnsureCertificate does with IsRenew.
	renew := false
	if p := rs.Status.AuthParams; p != nil && len(p.SignedCRT) > 0 {
		due, _, err := renewalDue(p.SignedCRT, now)
		if certificateFor(p.SignedCRT, rs.Spec.CSR) {
			old = p.SignedCRT
			if err == nil && !due {
				return old, false, nil
			}
		}
		renew = err == nil && due
	}
	secretName := kube.ResourceSliceCertSecretName(rs.Name)
	if old == nil && !renew {
		cert, err = r.c.CachedCertificateIn(ctx, rs.Namespace, secretName, rs.Spec.CSR)
		if err != nil {
			return nil, false, err
		}
		if cert != nil {
			if due, _, err := renewalDue(cert, now); err != nil || due {
				cert = nil
			}
		}
	}
	if cert == nil {
		if cert, err = r.issue(ctx, rs); err != nil {
			return nil, false, fmt.Errorf("issuing the certificate of ResourceSlice %s/%s: %w", rs.Namespace, rs.Name, err)
		}
		if _, err := r.c.StoreCertificateIn(ctx, rs.Namespace, secretName, consumerID, rs.Spec.CSR, cert); err != nil {
			return nil, false, err
		}
	}
	return cert, old != nil, nil
}

// issue has the CSR signed (§6.3 steps 2–4), waiting through the shared CSR
// informer when the Tenant reconciler's tracker is there.
func (r *sliceProvider) issue(ctx context.Context, rs *authv1beta1.ResourceSlice) ([]byte, error) {
	req := kube.CSRRequest{PEM: rs.Spec.CSR, GenerateName: kube.IdentityCSRGenerateName,
		Reason: kube.IdentityApprovalReason, Message: kube.IdentityApprovalMessage, KeepObject: r.o.KeepCSRs,
		Labels: map[string]string{kube.RemoteTenantCSRLabel: "true"}}
	if r.csrs != nil {
		batch, labels := r.csrs.begin()
		defer r.csrs.finish(ctx, batch)
		req.Labels, req.KeepObject, req.Wait = labels, true, r.csrs.wait
		req.Created = func(name string) { r.csrs.created(batch, name) }
	}
	issueCtx, cancel := context.WithTimeout(ctx, r.o.CertificateTimeout)
	defer cancel()
	return r.c.IssueCertificate(issueCtx, req)
}

// certificateFor tells whether cert was issued for csr: same subject and key.
func certificateFor(certPEM, csrPEM []byte) bool {
	cert, err := authcrypto.ParseCertificatePEM(certPEM)
	if err != nil {
		return false
	}
	csr, err := authcrypto.ParseCSR(csrPEM)
	if err != nil {
		return false
	}
	return cert.Subject.CommonName == csr.Subject.CommonName && authcrypto.SamePublicKey(cert.PublicKey, csr.PublicKey)
}

// writeStatus writes the decision when it changes the status (a pass that
// decides the same writes nothing), and tells humans: Liqo's Events when
// a condition changes, and the why of a denial.
func (r *sliceProvider) writeStatus(ctx context.Context, rs *authv1beta1.ResourceSlice, d *sliceDecision) error {
	now := metav1.NewTime(r.clock())
	status := rs.Status.DeepCopy()
	authWas := kube.SliceCondition(rs, authv1beta1.ResourceSliceConditionTypeAuthentication).DeepCopy()
	resWas := kube.SliceCondition(rs, authv1beta1.ResourceSliceConditionTypeResources).DeepCopy()
	authReason, authMsg := kube.SliceAuthenticationAcceptedReason, kube.SliceAuthenticationAcceptedMessage
	if d.authStatus == authv1beta1.ResourceSliceConditionDenied {
		authReason, authMsg = kube.SliceAuthenticationDeniedReason, kube.SliceAuthenticationDeniedMessage
	}
	status.Conditions = kube.SetSliceCondition(status.Conditions, authv1beta1.ResourceSliceConditionTypeAuthentication, d.authStatus, authReason, authMsg, now)
	resReason, resMsg := kube.SliceResourcesAcceptedReason, kube.SliceResourcesAcceptedMessage
	if d.resStatus == authv1beta1.ResourceSliceConditionDenied {
		resReason, resMsg = kube.SliceResourcesDeniedReason, kube.SliceResourcesDeniedMessage
	}
	if d.resReason != "" {
		resReason, resMsg = d.resReason, d.resMessage
	}
	if d.resStatus != "" {
		status.Conditions = kube.SetSliceCondition(status.Conditions, authv1beta1.ResourceSliceConditionTypeResources, d.resStatus, resReason, resMsg, now)
	}
	if d.authParams != nil {
		status.AuthParams = d.authParams
	}
	if d.resources != nil {
		status.Resources = d.resources
	}
	if d.offer != nil {
		d.offer.apply(status)
	}
	if apiequality.Semantic.DeepEqual(&rs.Status, status) {
		return nil
	}
	rs.Status = *status
	if _, err := r.c.Liqo.ResourceSlices(rs.Namespace).UpdateStatus(ctx, rs, metav1.UpdateOptions{}); err != nil {
		if !apierrors.IsConflict(err) && !kube.IsNotFound(err) {
			r.events.warning(ctx, rs, ReasonUpdateFailed, fmt.Sprintf("Unable to update the ResourceSlice status: %v", err))
		}
		return err
	}
	authChanged := authWas == nil || authWas.Status != d.authStatus || authWas.Reason != authReason
	if authChanged && d.invalid != "" {
		// Final until the slice (or its Tenant) changes: no requeue.
		r.events.warning(ctx, rs, ReasonInvalidCSR, d.invalid)
		klog.FromContext(ctx).Info("ResourceSlice authentication denied", "slice", klog.KObj(rs), "why", d.invalid)
	}
	if authChanged {
		r.events.normal(ctx, rs, authReason, authMsg)
	} else if d.renewed {
		r.events.normal(ctx, rs, ReasonCertificateRenewed, "Certificate for ResourceSlice renewed successfully")
	}
	if d.resStatus != "" && (resWas == nil || resWas.Status != d.resStatus || resWas.Reason != resReason) {
		if d.resDenied != "" {
			r.events.warning(ctx, rs, ReasonResourcesDenied, d.resDenied)
		}
		// Liqo's Event, by the condition's status.
		evReason, evMsg := kube.SliceResourcesAcceptedReason, kube.SliceResourcesAcceptedMessage
		if d.resStatus == authv1beta1.ResourceSliceConditionDenied {
			evReason, evMsg = kube.SliceResourcesDeniedReason, kube.SliceResourcesDeniedMessage
		}
		if resWas != nil {
			evMsg = "ResourceSlice resources updated" // Liqo's words for a change
		}
		r.events.normal(ctx, rs, evReason, evMsg)
	}
	return nil
}

func (r *sliceProvider) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}
