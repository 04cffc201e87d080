package artifact

import (
	"encoding/base64"
	"fmt"
	"strings"

	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A pin is the fingerprint the receiving admin expects, learnt from the
// other admin through another channel than the artifact (`info` shows it):
// an artifact changed in transit then no longer matches it.

// ParsePin checks a fingerprint given on the command line ("" = no pin):
// "SHA256:" and 43 characters of unpadded base64, as `info` prints them.
func ParsePin(flag, pin string) (string, error) {
	pin = strings.TrimSpace(pin)
	if pin == "" {
		return "", nil
	}
	sum, ok := strings.CutPrefix(pin, "SHA256:")
	if b, err := base64.RawStdEncoding.DecodeString(sum); !ok || err != nil || len(b) != 32 {
		return "", fmt.Errorf("--%s %q is not a fingerprint: give SHA256: and the 43 characters `liqo-auth-tui info` prints on the other cluster", flag, pin)
	}
	return pin, nil
}

// PinMismatchError is an artifact whose key or certificate is not the one
// pinned: it may have been replaced in transit, so it must not be applied.
type PinMismatchError struct {
	// What is "this Tenant was signed by a different key than the
	// consumer's" and the like; Sender "consumer" or "provider".
	What, Sender       string
	Expected, Received string
}

func (e *PinMismatchError) Error() string {
	return fmt.Sprintf("%s: %s expected, %s received — do not apply it; ask the %s's admin to send it again through another channel",
		e.What, e.Expected, e.Received, e.Sender)
}

// CheckTenantPin refuses a Tenant whose public key is not the pinned one
// (pin "" = no pin). Its signature proves only that whoever made it holds
// the key inside it, which an attacker's own Tenant does too.
func CheckTenantPin(t *authv1beta1.Tenant, pin string) error {
	if pin == "" {
		return nil
	}
	got, err := TenantFingerprint(t)
	if err != nil {
		return fmt.Errorf("tenant spec.publicKey: %w: generate it again on the consumer", err)
	}
	if got != pin {
		return &PinMismatchError{What: "this Tenant was signed by a different key than the consumer's", Sender: "consumer", Expected: pin, Received: got}
	}
	return nil
}

// CheckIdentityCAPin refuses an Identity whose CA is not the pinned one.
// An Identity without a CA (a publicly trusted API server) is pinned by its
// API server's certificate: the caller fetches it and uses CheckServerPin.
func CheckIdentityCAPin(id *authv1beta1.Identity, pin string) error {
	if pin == "" {
		return nil
	}
	got, err := IdentityCAFingerprint(id)
	if err != nil {
		return fmt.Errorf("identity authParams.ca: %w: generate the Identity again on the provider", err)
	}
	if got != pin {
		return &PinMismatchError{What: "this Identity carries a different CA than the provider's (API server " + id.Spec.AuthParams.APIServer + ")",
			Sender: "provider", Expected: pin, Received: got}
	}
	return nil
}

// CheckServerPin compares the certificate a server presented (received,
// its fingerprint) with the pin; what names the artifact and the server.
func CheckServerPin(what, pin, received string) error {
	if pin == "" || received == pin {
		return nil
	}
	return &PinMismatchError{What: what, Sender: "provider", Expected: pin, Received: received}
}
