package flows

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/validation"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// The checks of single values that an admin types, in a flag or a form:
// both front-ends call these, so that one value gets one verdict in the
// same words. A front-end may only put the field's name before it.

// ValidateClusterID refuses what is not a cluster ID (a DNS-1123 label).
func ValidateClusterID(id string) error { return authcrypto.ValidateClusterID(id) }

// ValidateForeignClusterName refuses a name a Liqo 0.x ForeignCluster may
// not have (a DNS-1123 subdomain).
func ValidateForeignClusterName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("%q is not a valid ForeignCluster name: %s", name, errs[0])
	}
	return nil
}

// ValidateAuthURL refuses what is not a Liqo 0.x auth server's URL,
// https://HOST[:PORT].
func ValidateAuthURL(s string) error {
	_, err := peerinfo.ValidateAuthURL(s)
	return err
}

// ReadCABundle reads the CA bundle a provider advertises instead of its
// kubeconfig's (--ca-override-file, the wizard's CA file): a PEM
// certificate, refused here rather than by the consumer later.
func ReadCABundle(path string) ([]byte, error) {
	ca, err := os.ReadFile(ExpandHome(path))
	if err != nil {
		return nil, fmt.Errorf("reading the CA file: %w", err)
	}
	if _, err := authcrypto.CertificateFingerprint(ca); err != nil {
		return nil, fmt.Errorf("CA file %s: %w: give a PEM certificate", path, err)
	}
	return ca, nil
}
