package wizardbackend

import (
	"fmt"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/tui"
)

func tenantArtifact(t *artifact.Tenant, data []byte, forID string) (*tui.Artifact, error) {
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

func identityArtifact(id *artifact.Identity, data []byte) (*tui.Artifact, error) {
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
		APIServer: id.Spec.AuthParams.APIServer, NotAfter: artifact.CertificateNotAfter(id)}
	if masked := artifact.MaskedIdentity(id); masked != nil {
		// EKS Identities carry AWS access keys: mask them on screen and
		// keep them off the clipboard.
		preview, err := artifact.Encode(masked, "yaml")
		if err != nil {
			return nil, err
		}
		a.Preview, a.Sensitive = string(preview), true
	}
	return a, nil
}
