package wizardbackend

import (
	"fmt"
	"strings"
	"time"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func tenantArtifact(t *authv1beta1.Tenant, data []byte, forID string) (*tui.Artifact, error) {
	var err error
	if data == nil {
		if data, err = artifact.Encode(t, "yaml"); err != nil {
			return nil, err
		}
	}
	fp, err := artifact.TenantFingerprint(t)
	if err != nil {
		return nil, fmt.Errorf("tenant spec.publicKey: %w", err)
	}
	return &tui.Artifact{Kind: handshake.KindTenant, Data: data, Fingerprint: fp, FromID: t.Spec.ClusterID, ForID: forID}, nil
}

func identityArtifact(id *authv1beta1.Identity, data []byte) (*tui.Artifact, error) {
	var err error
	if data == nil {
		if data, err = artifact.Encode(id, "yaml"); err != nil {
			return nil, err
		}
	}
	fp, err := artifact.IdentityCAFingerprint(id)
	if err != nil {
		return nil, fmt.Errorf("identity authParams.ca: %w", err)
	}
	a := &tui.Artifact{Kind: handshake.KindIdentity, Data: data, Fingerprint: fp, FromID: id.Spec.ClusterID,
		APIServer: id.Spec.AuthParams.APIServer, NotAfter: identityNotAfter(id)}
	if aws := id.Spec.AuthParams.AWSConfig; aws != nil {
		// EKS Identities carry AWS access keys: mask them on screen and
		// keep them off the clipboard.
		masked := id.DeepCopy()
		masked.Spec.AuthParams.AWSConfig.AWSAccessKeyID = mask(aws.AWSAccessKeyID)
		masked.Spec.AuthParams.AWSConfig.AWSSecretAccessKey = "********"
		preview, err := artifact.Encode(masked, "yaml")
		if err != nil {
			return nil, err
		}
		a.Preview, a.Sensitive = string(preview), true
	}
	return a, nil
}

func mask(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return s[:4] + strings.Repeat("*", len(s)-4)
}

func identityNotAfter(id *authv1beta1.Identity) time.Time {
	if id == nil {
		return time.Time{}
	}
	cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT)
	if err != nil {
		return time.Time{}
	}
	return cert.NotAfter
}
