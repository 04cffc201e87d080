package artifact_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" +
	"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

func testPeerInfo() *peerinfo.Info {
	return &peerinfo.Info{ClusterID: "4f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", ClusterName: "milan",
		AuthURL: "https://10.0.0.5:30443", Token: testToken, Version: "v0.10.3", Line: peerinfo.V04}
}

func encodedPeerInfo(t *testing.T) string {
	t.Helper()
	line, err := artifact.EncodePeerInfo(testPeerInfo())
	require.NoError(t, err)
	return line
}

// encodeRaw builds a peer info line with a valid checksum around any JSON,
// as an attacker or another version could.
func encodeRaw(payload []byte) string {
	sum := sha256.Sum256(payload)
	return handshake.PeerInfoPrefix + base64.RawURLEncoding.EncodeToString(payload) + "." + hex.EncodeToString(sum[:])[:8]
}

// The artifact is one line that survives blanks around it and the line
// breaks a terminal adds when it wraps it.
func TestPeerInfoRoundTrip(t *testing.T) {
	line := encodedPeerInfo(t)
	assert.True(t, strings.HasPrefix(line, handshake.PeerInfoPrefix))
	assert.NotContains(t, line, "\n")
	assert.NotContains(t, line, "=", "no base64 padding")
	for name, pasted := range map[string]string{
		"as is":    line,
		"blanks":   "  \n" + line + "\r\n\n",
		"wrapped":  line[:40] + "\n" + line[40:90] + "\r\n  " + line[90:],
		"no final": line,
	} {
		info, err := artifact.ParsePeerInfo([]byte(pasted))
		require.NoError(t, err, name)
		assert.Equal(t, testPeerInfo(), info, name)
	}
	disabled := testPeerInfo()
	disabled.AuthenticationDisabled, disabled.Line, disabled.Version = true, peerinfo.V03, ""
	line, err := artifact.EncodePeerInfo(disabled)
	require.NoError(t, err)
	info, err := artifact.ParsePeerInfo([]byte(line))
	require.NoError(t, err)
	assert.Equal(t, disabled, info)
}

// Every bad input is one line saying what it is and what to do, and never
// echoes the token.
func TestParsePeerInfoBadInput(t *testing.T) {
	line := encodedPeerInfo(t)
	nonce, err := authcrypto.NewNonce()
	require.NoError(t, err)
	body := strings.TrimPrefix(line, handshake.PeerInfoPrefix)
	edited := []byte(line)
	edited[len(handshake.PeerInfoPrefix)+10] ^= 1 // still base64url: 'A'<->'@' never happens for letters/digits here
	if edited[len(handshake.PeerInfoPrefix)+10] == '@' {
		edited[len(handshake.PeerInfoPrefix)+10] = 'A'
	}
	tenantYAML := "apiVersion: authentication.liqo.io/v1beta1\nkind: Tenant\nmetadata:\n  name: x\n"
	kubeconfig := "apiVersion: v1\nkind: Config\nclusters: []\n"

	withJSON := func(f func(m map[string]any)) string {
		m := map[string]any{}
		b, _ := json.Marshal(testPeerInfo())
		require.NoError(t, json.Unmarshal(b, &m))
		f(m)
		b, _ = json.Marshal(m)
		return encodeRaw(b)
	}
	cases := []struct {
		name, input, want string
	}{
		{"empty", " \n", "peer info is empty"},
		{"truncated end", line[:len(line)-3], "truncated"},
		{"truncated middle", line[:len(line)/2], "truncated"},
		{"sum cut off", strings.TrimSuffix(line, line[strings.LastIndex(line, "."):]), "truncated"},
		{"edited", string(edited), "checksum mismatch"},
		{"body edited, sum kept", handshake.PeerInfoPrefix + "x" + body[1:], "checksum mismatch"},
		{"nonce", nonce + "\n", "this is a nonce"},
		{"tenant", tenantYAML, "this is a Tenant"},
		{"kubeconfig", kubeconfig, "this is a kubeconfig"},
		{"bare token", testToken, "bare auth token"},
		{"liqoctl command", "liqoctl peer out-of-band milan --auth-url https://a:1 --cluster-id x --auth-token " + testToken, "liqoctl command"},
		{"text before", "peer info: " + line, "must start the input"},
		{"garbage", "hello world", "not a peer info"},
		{"unknown field", withJSON(func(m map[string]any) { m["extra"] = 1 }), "another version"},
		{"short token", withJSON(func(m map[string]any) { m["token"] = testToken[:127] }), "127 characters"},
		{"uppercase token", withJSON(func(m map[string]any) { m["token"] = testToken[:10] + strings.ToUpper(testToken[10:]) }), "not lowercase hex at offset 10"},
		{"http auth URL", withJSON(func(m map[string]any) { m["authURL"] = "http://10.0.0.5:30443" }), "not https"},
		{"auth URL with path", withJSON(func(m map[string]any) { m["authURL"] = "https://10.0.0.5/x" }), "host and port"},
		{"bad cluster ID", withJSON(func(m map[string]any) { m["clusterID"] = "Not_An_ID" }), "invalid cluster ID"},
		{"bad cluster name", withJSON(func(m map[string]any) { m["clusterName"] = "Milan!" }), "cluster name"},
		{"v0.2 provider", withJSON(func(m map[string]any) { m["line"] = "v0.2" }), "v0.2"},
		{"unknown line", withJSON(func(m map[string]any) { m["line"] = "v9" }), "unknown Liqo 0.x line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := artifact.ParsePeerInfo([]byte(c.input))
			require.Error(t, err)
			assert.Nil(t, info)
			msg := err.Error()
			assert.Contains(t, msg, c.want)
			assert.NotContains(t, msg, "\n", "one line")
			assert.NotContains(t, msg, testToken[20:40], "the token is never echoed")
			assert.Regexp(t, "(run|copy|use|upgrade|fix|remove|give|paste|pass|check)", msg, "says what to do")
		})
	}
	huge := make([]byte, artifact.MaxSize+1)
	_, err = artifact.ParsePeerInfo(huge)
	assert.ErrorContains(t, err, "right file")
}

func TestEncodePeerInfoRefusesInvalid(t *testing.T) {
	bad := testPeerInfo()
	bad.Token = "secret"
	_, err := artifact.EncodePeerInfo(bad)
	assert.ErrorContains(t, err, "6 characters")
	bad = testPeerInfo()
	bad.AuthURL = "http://x:1"
	_, err = artifact.EncodePeerInfo(bad)
	assert.ErrorContains(t, err, "not https")
	_, err = artifact.EncodePeerInfo(nil)
	assert.Error(t, err)
}

// FuzzParsePeerInfo: pasted text comes from other admins. No input panics,
// what is accepted is valid and encodes back to an equivalent line, and no
// error echoes the token of the input.
func FuzzParsePeerInfo(f *testing.F) {
	line, err := artifact.EncodePeerInfo(testPeerInfo())
	require.NoError(f, err)
	f.Add([]byte(line))
	f.Add([]byte(line[:len(line)-1]))
	f.Add([]byte(" " + line[:30] + "\n" + line[30:] + "\n"))
	f.Add([]byte(handshake.PeerInfoPrefix))
	f.Add([]byte(handshake.PeerInfoPrefix + "."))
	f.Add([]byte(testToken))
	f.Add([]byte("kind: Tenant\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := artifact.ParsePeerInfo(data)
		if err != nil {
			if info != nil {
				t.Fatal("peer info returned with an error")
			}
			if strings.Contains(err.Error(), testToken) {
				t.Fatal("error echoes the token")
			}
			return
		}
		if verr := artifact.ValidatePeerInfo(info); verr != nil {
			t.Fatalf("accepted an invalid peer info: %v", verr)
		}
		again, err := artifact.EncodePeerInfo(info)
		if err != nil {
			t.Fatalf("accepted peer info cannot be encoded: %v", err)
		}
		back, err := artifact.ParsePeerInfo([]byte(again))
		if err != nil || *back != *info {
			t.Fatalf("re-encoded peer info does not round-trip: %v", err)
		}
	})
}

// What `generate peer-info -o json` prints, `apply peer-info -f` reads
// back; a JSON whose peer info line was edited fails its checksum.
func TestPeerInfoJSONIsReadBack(t *testing.T) {
	info := testPeerInfo()
	data, err := artifact.PeerInfoJSON(info, "liqoctl peer out-of-band milan ...")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, info.ClusterID, doc["clusterID"], "the fields stay at the top, as before")
	assert.Equal(t, encodedPeerInfo(t), doc["peerInfo"])
	got, err := artifact.ParsePeerInfo(data)
	require.NoError(t, err)
	assert.Equal(t, info, got)

	edited := strings.Replace(string(data), encodedPeerInfo(t), encodedPeerInfo(t)[:len(encodedPeerInfo(t))-1]+"0", 1)
	_, err = artifact.ParsePeerInfo([]byte(edited))
	assert.ErrorContains(t, err, "checksum")
}
