package crypto

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewNonce(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		n, err := NewNonce()
		require.NoError(t, err)
		assert.Len(t, n, NonceLength)
		assert.True(t, strings.HasSuffix(n, "=="), n)
		assert.NoError(t, ValidateNonce(n))
		assert.False(t, seen[n], "duplicate nonce %s", n)
		seen[n] = true
	}
}

func TestValidateNonceRejects(t *testing.T) {
	vector := base64.StdEncoding.EncodeToString(vectorNonceBytes())
	docs := "5IDZQiNG7EUv+GPmS5RvzcTAo8ksSfM3LUTFaBYnPfvY5WndhNGkJVFOFmTVc0ArT4B/FkH6QO7Kfhk6Q1B4ww=="
	require.NoError(t, ValidateNonce(docs), "the example nonce of the Liqo docs (§3.2)")

	tests := []struct {
		name, nonce, wantErr string
	}{
		{"empty", "", "nonce is empty"},
		{"truncated", vector[:40], "nonce is 40 characters, want 88: it looks truncated"},
		{"too long", vector + "AAAA", "nonce is 92 characters, want 88: it has extra characters"},
		{"trailing newline", vector + "\n", `nonce is not base64: illegal character at offset 88 ('\n'): remove whitespace and line breaks`},
		{"space inside", vector[:12] + " " + vector[13:], `nonce is not base64: illegal character at offset 12 (' '): remove whitespace and line breaks`},
		{"URL-safe base64", base64.URLEncoding.EncodeToString(vectorNonceBytes()), `nonce is not base64: illegal character at offset 0 ('_'): this is URL-safe base64, Liqo nonces use standard base64`},
		{"non-ASCII", "é" + vector[2:], `nonce is not base64: illegal character at offset 0 (byte 0xc3)`},
		{"padding in the middle", vector[:10] + "=" + vector[11:], "nonce is not base64: illegal character at offset 10"},
		{"no padding", base64.StdEncoding.EncodeToString(make([]byte, 66)), "nonce decodes to 66 bytes, want 64"},
		{"one padding char", base64.StdEncoding.EncodeToString(make([]byte, 65)), "nonce decodes to 65 bytes, want 64"},
		{"non-canonical last char", vector[:85] + "B==", "nonce is not canonical base64: the character before the padding has non-zero unused bits"},
		{"decoded bytes", string(vectorNonceBytes()), "nonce is not base64: illegal character at offset 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateNonce(tt.nonce)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tt.wantErr), "got %q, want prefix %q", err, tt.wantErr)
		})
	}
}
