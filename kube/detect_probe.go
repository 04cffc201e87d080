package kube

import (
	"context"
	"errors"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	authnv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// Info describes a cluster as the handshake sees it.
type Info struct {
	ClusterID      string   `json:"clusterID"`
	LiqoInstalled  bool     `json:"liqoInstalled"`
	Controller     bool     `json:"controller"`
	KeyAlgorithm   string   `json:"keyAlgorithm"`
	KeyFingerprint string   `json:"keyFingerprint"`
	APIServer      string   `json:"apiServer"`
	User           string   `json:"user,omitempty"`
	Groups         []string `json:"groups,omitempty"`
	// Restricted: the user may not read the authentication-keys Secret or
	// the controller's Lease (Liqo's peering user, §9.4), so the key and
	// Controller are unknown rather than absent.
	Restricted bool `json:"restricted,omitempty"`
	// LiqoRelease: which Liqo generation (and 0.x version) runs there.
	LiqoRelease
}

// WhoAmI asks the API server who the client is. It is the reachability and
// authentication probe: any failure comes back as a classified ReachError.
func (c *Cluster) WhoAmI(ctx context.Context) (string, []string, error) {
	r, err := c.Kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", nil, c.Reach(err)
	}
	return r.Status.UserInfo.Username, r.Status.UserInfo.Groups, nil
}

// Probe reads what the handshake needs to know about the cluster. A cluster
// not prepared yet (no ID, no keys) is not an error: those fields stay empty.
// Nor is a read the user may not make (a peering user may read the
// cluster-ID ConfigMap, not the keys nor the Lease): what it could not read
// stays empty and Restricted is set.
func (c *Cluster) Probe(ctx context.Context) (*Info, error) {
	info := &Info{APIServer: c.Server}
	var err error
	if info.User, info.Groups, err = c.WhoAmI(ctx); err != nil {
		return nil, err
	}
	forbidden := func(err error) bool {
		if apierrors.IsForbidden(err) {
			info.Restricted = true
			return true
		}
		return false
	}
	if info.ClusterID, err = c.ClusterID(ctx); err != nil && !IsNotFoundOrNoID(err) && !forbidden(err) {
		return nil, err
	}
	if info.LiqoInstalled, err = c.LiqoInstalled(ctx); err != nil {
		return nil, err
	}
	if info.LiqoRelease, err = c.DetectRelease(ctx); err != nil {
		return nil, err
	}
	if info.Controller, err = c.ControllerRunning(ctx); err != nil && !forbidden(err) {
		return nil, err
	}
	pub, _, err := c.PublicKey(ctx)
	switch {
	case errors.Is(err, ErrNoKeys), forbidden(err):
	case err != nil:
		return nil, err
	default:
		info.KeyAlgorithm = authcrypto.KeyAlgorithm(pub)
		if info.KeyFingerprint, err = authcrypto.Fingerprint(pub); err != nil {
			return nil, err
		}
	}
	return info, nil
}

// ControllerRunning tells whether this project's in-cluster controller holds
// a fresh leader Lease in the Liqo namespace.
func (c *Cluster) ControllerRunning(ctx context.Context) (bool, error) {
	lease, err := c.Kube.CoordinationV1().Leases(c.Namespace).Get(ctx, ControllerLeaseName, metav1.GetOptions{})
	if IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, live := LeaseHeld(lease, time.Now())
	return live, nil
}

// LeaseHeld tells until when lease is held by a holder that renewed it
// (the zero time, false: nobody holds it, or its holder let it expire).
func LeaseHeld(lease *coordinationv1.Lease, now time.Time) (time.Time, bool) {
	s := lease.Spec
	if s.HolderIdentity == nil || *s.HolderIdentity == "" || s.RenewTime == nil || s.LeaseDurationSeconds == nil {
		return time.Time{}, false
	}
	expiry := s.RenewTime.Add(time.Duration(*s.LeaseDurationSeconds) * time.Second)
	return expiry, now.Before(expiry)
}
