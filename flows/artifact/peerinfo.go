package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// The peer info travels as ONE line, so that it survives a clipboard, a
// chat message and a terminal that wraps it:
//
//	liqo-0x-peer-info:<base64url(JSON), no padding>.<8 hex of SHA-256(JSON)>
//
// The checksum tells a truncated or edited paste from a wrong token before
// anything reaches a cluster.
const peerInfoSumLength = 8

// peerInfoRemedy ends the lines about a peer info that cannot be read.
const peerInfoRemedy = "copy the whole line printed by `liqo-auth-tui generate peer-info` on the provider again"

// EncodePeerInfo renders a valid peer info as its one-line artifact.
func EncodePeerInfo(info *peerinfo.Info) (string, error) {
	if err := ValidatePeerInfo(info); err != nil {
		return "", err
	}
	data, err := json.Marshal(info)
	if err != nil {
		return "", err
	}
	return handshake.PeerInfoPrefix + base64.RawURLEncoding.EncodeToString(data) + "." + peerInfoSum(data), nil
}

func peerInfoSum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:peerInfoSumLength]
}

// ParsePeerInfo reads a peer info as pasted or saved: blanks around it and
// line breaks a terminal put inside it are dropped. A truncated or edited
// line fails its checksum; another artifact pasted by mistake is named.
func ParsePeerInfo(data []byte) (*peerinfo.Info, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("peer info input is %d KiB: a peer info is one line of a few hundred characters; is it the right file?", len(data)>>10)
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return nil, errors.New("peer info is empty: paste the line printed by `liqo-auth-tui generate peer-info` on the provider")
	}
	if line, ok := peerInfoLineOfJSON(text); ok {
		text = line
	}
	if !strings.HasPrefix(text, handshake.PeerInfoPrefix) {
		return nil, notPeerInfo(text)
	}
	// Base64url and hex hold no blanks: any is a line break of the paste.
	line := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, strings.TrimPrefix(text, handshake.PeerInfoPrefix))
	dot := strings.LastIndexByte(line, '.')
	if dot < 0 || len(line)-dot-1 != peerInfoSumLength {
		return nil, fmt.Errorf("peer info is truncated (its checksum is missing): %s", peerInfoRemedy)
	}
	body, sum := line[:dot], line[dot+1:]
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || peerInfoSum(payload) != sum {
		return nil, fmt.Errorf("peer info is truncated or was edited (checksum mismatch): %s", peerInfoRemedy)
	}
	info := &peerinfo.Info{}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(info); err != nil {
		return nil, fmt.Errorf("peer info was made by another version of liqo-auth-tui (%v): use the same version on both clusters", err)
	}
	if err := ValidatePeerInfo(info); err != nil {
		return nil, err
	}
	return info, nil
}

// PeerInfoJSON is `generate peer-info -o json`: the fields, the one-line
// peer info and liqoctl's equivalent command. ParsePeerInfo reads it back.
func PeerInfoJSON(info *peerinfo.Info, liqoctlCommand string) ([]byte, error) {
	line, err := EncodePeerInfo(info)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(peerInfoDocument{peerInfoFields: *info, Line: line, LiqoctlCommand: liqoctlCommand}, "", "  ")
	return append(data, '\n'), err
}

// peerInfoDocument is the JSON form of a peer info.
type peerInfoDocument struct {
	peerInfoFields
	Line           string `json:"peerInfo"`
	LiqoctlCommand string `json:"liqoctlCommand"`
}

// peerInfoFields lets peerInfoDocument embed the fields under another name.
type peerInfoFields = peerinfo.Info

// peerInfoLineOfJSON is the one-line peer info inside the JSON form (its
// checksum then guards the whole), ok false when text is not that form.
func peerInfoLineOfJSON(text string) (string, bool) {
	if !strings.HasPrefix(text, "{") {
		return "", false
	}
	var doc struct {
		PeerInfo string `json:"peerInfo"`
	}
	if json.Unmarshal([]byte(text), &doc) != nil || !strings.HasPrefix(doc.PeerInfo, handshake.PeerInfoPrefix) {
		return "", false
	}
	return doc.PeerInfo, true
}

// notPeerInfo names what was pasted instead of a peer info.
func notPeerInfo(text string) error {
	const what = "run `liqo-auth-tui generate peer-info` on the provider and pass the line it prints"
	first := text
	if i := strings.IndexAny(first, "\r\n"); i >= 0 {
		first = first[:i]
	}
	switch {
	case strings.Contains(text, handshake.PeerInfoPrefix):
		return fmt.Errorf("the peer info must start the input with %s: remove what comes before it", handshake.PeerInfoPrefix)
	case authcrypto.ValidateNonce(text) == nil:
		return fmt.Errorf("this is a nonce (Liqo v1's handshake), not a peer info: the provider runs Liqo 0.x? then %s", what)
	case isLiqo0xToken(text):
		return fmt.Errorf("this is a bare auth token, not a peer info (it also carries the cluster ID and auth URL): %s", what)
	case strings.HasPrefix(first, "liqoctl ") || strings.Contains(first, " peer out-of-band ") || strings.Contains(first, " add cluster "):
		return fmt.Errorf("this is a liqoctl command, not a peer info: run it with liqoctl, or %s", what)
	}
	if kind := yamlKind(text); kind != "" {
		return fmt.Errorf("this is a %s, not a peer info: %s", kind, what)
	}
	return fmt.Errorf("this is not a peer info (it does not start with %s): %s", handshake.PeerInfoPrefix, what)
}

// yamlKind is the kind of a pasted Kubernetes object or kubeconfig, "" if
// the text is not one.
func yamlKind(text string) string {
	var meta struct {
		Kind string `json:"kind"`
	}
	if yaml.Unmarshal([]byte(text), &meta) != nil || meta.Kind == "" {
		return ""
	}
	if meta.Kind == "Config" {
		return "kubeconfig"
	}
	return meta.Kind
}

func isLiqo0xToken(s string) bool {
	return len(s) == peerinfo.TokenLength && strings.IndexFunc(s, func(r rune) bool { return !isLowerHex(r) }) < 0
}

func isLowerHex(r rune) bool { return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' }

// ValidatePeerInfo checks what a Liqo 0.x consumer would otherwise reject
// late or never: a DNS-label cluster ID and name, an https auth URL, a
// 128-character lowercase hex token, a supported release line.
func ValidatePeerInfo(info *peerinfo.Info) error {
	if info == nil {
		return errors.New("no peer info")
	}
	if err := authcrypto.ValidateClusterID(info.ClusterID); err != nil {
		return fmt.Errorf("peer info: %w: %s", err, peerInfoRemedy)
	}
	if errs := validation.IsDNS1123Label(info.ClusterName); len(errs) > 0 {
		return fmt.Errorf("peer info: cluster name %q is not a DNS label (%s): fix CLUSTER_NAME of the provider's cluster-ID ConfigMap", info.ClusterName, errs[0])
	}
	if _, err := peerinfo.ValidateAuthURL(info.AuthURL); err != nil {
		return fmt.Errorf("peer info: %w", err)
	}
	if err := validateLiqo0xToken(info.Token); err != nil {
		return err
	}
	switch info.Line {
	case peerinfo.LineUnknown, peerinfo.V03, peerinfo.V04:
	case peerinfo.V02:
		return errors.New("peer info: the provider runs Liqo v0.2: " + handshake.Liqo02Unsupported)
	default:
		return fmt.Errorf("peer info: unknown Liqo 0.x line %q: use the same version of liqo-auth-tui on both clusters", info.Line)
	}
	return nil
}

// validateLiqo0xToken never echoes the token: only its length and the
// position of the first bad character.
func validateLiqo0xToken(token string) error {
	const how = "copy it again: a Liqo 0.x token is 128 lowercase hex characters (`kubectl -n liqo get secret auth-token -o jsonpath='{.data.token}' | base64 -d` on the provider)"
	if len(token) != peerinfo.TokenLength {
		return fmt.Errorf("peer info: the token is %d characters long: %s", len(token), how)
	}
	if i := strings.IndexFunc(token, func(r rune) bool { return !isLowerHex(r) }); i >= 0 {
		return fmt.Errorf("peer info: the token has a character that is not lowercase hex at offset %d: %s", i, how)
	}
	return nil
}
