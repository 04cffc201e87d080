package crypto

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
)

// HandoffCodeInput is what both admins' tools know once an artifact has
// been handed over; a field not known yet at that step stays "".
type HandoffCodeInput struct {
	ConsumerID, ProviderID string
	// Nonce is the provider's nonce (the one the Tenant signs).
	Nonce string
	// ConsumerKey is the fingerprint of the consumer's public key.
	ConsumerKey string
	// ProviderCA is the fingerprint of the CA the Identity carries, and
	// APIServer the server it points at: "" at the Tenant's step, which
	// happens before the consumer learns them.
	ProviderCA, APIServer string
}

// handoffCodeDomain keeps the code apart from any other hash of the same
// fields; a new derivation gets a new version.
const handoffCodeDomain = "liqo-auth-tui handoff code v1"

// handoffCodeDigits: 20 decimal digits (about 66 bits). An attacker who
// replaced an artifact would have to find a key of their own whose code
// equals the real one: 2^66 tries is out of reach, while the admins
// still read it aloud in five groups.
const handoffCodeDigits = 20

// HandoffCode is the short code both admins read aloud: "4821 0937 5512
// 8830 1174". Equal on both sides when both saw the same IDs, nonce,
// consumer key (and, at the Identity's step, CA and API server); any
// substitution changes it.
func HandoffCode(in HandoffCodeInput) string {
	h := sha256.New()
	for _, field := range []string{handoffCodeDomain, in.ConsumerID, in.ProviderID, in.Nonce, in.ConsumerKey, in.ProviderCA, in.APIServer} {
		// Length-prefixed: no two field lists hash the same bytes.
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(field)))
		h.Write(n[:])
		h.Write([]byte(field))
	}
	sum := h.Sum(nil)
	mod := new(big.Int).Exp(big.NewInt(10), big.NewInt(handoffCodeDigits), nil)
	digits := fmt.Sprintf("%0*s", handoffCodeDigits, new(big.Int).Mod(new(big.Int).SetBytes(sum), mod).String())
	groups := make([]string, 0, handoffCodeDigits/4)
	for i := 0; i < len(digits); i += 4 {
		groups = append(groups, digits[i:i+4])
	}
	return strings.Join(groups, " ")
}
