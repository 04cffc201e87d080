package crypto

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
)

// NonceLength is the length of a Liqo nonce string: 64 random bytes in
// standard base64 with padding (§3.2).
const NonceLength = 88

// nonceBytes is the amount of randomness in a Liqo nonce.
const nonceBytes = 64

// NewNonce returns a fresh nonce string as Liqo's nonce-creator makes it.
// The string itself (not the decoded bytes) is what gets signed (§4.1).
func NewNonce() (string, error) {
	buf := make([]byte, nonceBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("reading random bytes for the nonce: %w", err)
	}
	return base64.StdEncoding.EncodeToString(buf), nil
}

// ValidateNonce checks that nonce looks like a Liqo-generated nonce. It trims
// nothing: a pasted nonce with a stray newline would be signed as is and then
// fail verification on the provider, so we want to report it here.
func ValidateNonce(nonce string) error {
	if nonce == "" {
		return errors.New("nonce is empty")
	}
	// Check characters first: base64.StdEncoding silently skips '\r' and
	// '\n', and a stray space is a more useful message than a wrong length.
	for i := 0; i < len(nonce); i++ {
		if c := nonce[i]; !isStdBase64Char(c) && c != '=' {
			return fmt.Errorf("nonce is not base64: illegal character at offset %d (%s)%s", i, describeByte(c), nonceCharHint(c))
		}
	}
	switch {
	case len(nonce) < NonceLength:
		return fmt.Errorf("nonce is %d characters, want %d: it looks truncated", len(nonce), NonceLength)
	case len(nonce) > NonceLength:
		return fmt.Errorf("nonce is %d characters, want %d: it has extra characters", len(nonce), NonceLength)
	}
	// Strict: the unused bits of the last character must be zero, as in any
	// encoder output, so each nonce has exactly one accepted spelling.
	decoded, err := base64.StdEncoding.Strict().DecodeString(nonce)
	if err != nil {
		if _, lenientErr := base64.StdEncoding.DecodeString(nonce); lenientErr == nil {
			return errors.New("nonce is not canonical base64: the character before the padding has non-zero unused bits")
		}
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return fmt.Errorf("nonce is not base64: illegal character at offset %d", int64(corrupt))
		}
		return fmt.Errorf("nonce is not base64: %w", err)
	}
	if len(decoded) != nonceBytes {
		return fmt.Errorf("nonce decodes to %d bytes, want %d", len(decoded), nonceBytes)
	}
	return nil
}

func isStdBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// describeByte shows ASCII as a quoted character and anything else as hex:
// a lone byte of a UTF-8 sequence would print as a misleading character.
func describeByte(c byte) string {
	if c < 0x80 {
		return fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func nonceCharHint(c byte) string {
	switch c {
	case ' ', '\t', '\r', '\n':
		return ": remove whitespace and line breaks"
	case '-', '_':
		return ": this is URL-safe base64, Liqo nonces use standard base64"
	default:
		return ""
	}
}
