package flows

import (
	"context"
	"fmt"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// KeyTypeAuto is the peering user's key type chosen from the provider's TLS
// compatibility mode (peeringUserKeyType), as liqoctl's
// --tls-compatibility-mode=auto does.
const KeyTypeAuto = "auto"

// tlsCompatibilityFlag is the flag of Liqo's controller-manager (Helm value
// authentication.tlsCompatibilityMode) that makes it generate RSA-2048 keys
// instead of Ed25519 (§1.2).
const tlsCompatibilityFlag = "tls-compatibility-mode"

// ParsePeeringUserKeyType reads a peering user's key type: auto (or "",
// both returned as ""), ed25519 or rsa.
func ParsePeeringUserKeyType(s string) (authcrypto.KeyType, error) {
	if s == "" || s == KeyTypeAuto {
		return "", nil
	}
	if _, err := authcrypto.ParseKeyType(s); err != nil {
		return "", fmt.Errorf("unknown key type %q: allowed values are %q, %q and %q", s, KeyTypeAuto, authcrypto.KeyEd25519, authcrypto.KeyRSA)
	}
	return authcrypto.KeyType(s), nil
}

// peeringUserKeyType is the key type of a peering user asked as auto, and
// why. Like liqoctl's auto: RSA-2048 when Liqo's controller-manager
// Deployment runs with --tls-compatibility-mode (bare or true), else
// Ed25519, Liqo's default. Without that Deployment (this project's init and
// controller, which have no such flag; Liqo run outside a Pod), the
// cluster key tells the mode: `init --key-type rsa` and Liqo in that mode
// make it RSA.
func peeringUserKeyType(ctx context.Context, c *kube.Cluster) (authcrypto.KeyType, string) {
	if args, found := deployedArgs(ctx, c, kube.LiqoControllerDeployment); found {
		compat := false
		eachFlag(args, func(f flagArg) {
			if f.name == tlsCompatibilityFlag {
				compat = f.boolean()
			}
		})
		if compat {
			return authcrypto.KeyRSA, "Liqo's controller-manager runs in TLS compatibility mode"
		}
		return authcrypto.KeyEd25519, "Liqo's default: its controller-manager does not run in TLS compatibility mode"
	}
	if pub, _, err := c.PublicKey(ctx); err == nil {
		if t, _ := authcrypto.KeyTypeOf(pub); t == authcrypto.KeyRSA {
			return authcrypto.KeyRSA, "the cluster key is RSA: TLS compatibility mode"
		}
	}
	return authcrypto.KeyEd25519, "Liqo's default"
}
