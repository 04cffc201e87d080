package artifact

import (
	"strings"
	"time"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// The handshake's artifacts, as the front-ends hold them.
type (
	// Tenant is what the consumer hands the provider.
	Tenant = authv1beta1.Tenant
	// Identity is what the provider hands the consumer.
	Identity = authv1beta1.Identity
)

// DefaultSliceClass is the ResourceSlice class Liqo decides by itself.
const DefaultSliceClass = string(authv1beta1.ResourceSliceClassDefault)

// SliceDenied is a provider's condition on a ResourceSlice it refused.
const SliceDenied = string(authv1beta1.ResourceSliceConditionDenied)

// CertificateNotAfter is when an Identity's signed certificate expires
// (zero when there is none, or it cannot be read).
func CertificateNotAfter(id *Identity) time.Time {
	if id == nil {
		return time.Time{}
	}
	cert, err := authcrypto.ParseCertificatePEM(id.Spec.AuthParams.SignedCRT)
	if err != nil {
		return time.Time{}
	}
	return cert.NotAfter
}

// MaskedIdentity is id with the AWS access keys of an EKS Identity masked,
// for screens; nil when id carries no such keys.
func MaskedIdentity(id *Identity) *Identity {
	aws := id.Spec.AuthParams.AWSConfig
	if aws == nil {
		return nil
	}
	masked := id.DeepCopy()
	masked.Spec.AuthParams.AWSConfig.AWSAccessKeyID = maskKeyID(aws.AWSAccessKeyID)
	masked.Spec.AuthParams.AWSConfig.AWSSecretAccessKey = "********"
	return masked
}

// maskKeyID keeps the first 4 characters of an access key ID: enough to
// tell keys apart.
func maskKeyID(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return s[:4] + strings.Repeat("*", len(s)-4)
}
