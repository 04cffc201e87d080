package artifact

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/asn1"
	"encoding/base64"
	"fmt"
	"math/big"
	"strings"

	"sigs.k8s.io/yaml"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// A Tenant or Identity pasted or saved only in part (a terminal that
// dropped the end of a copy, a file cut short) is told as truncated, with
// what to do, instead of with the parser's words about the first field it
// stumbled on. A cut at any byte shows one of three ways: the YAML or JSON
// ends inside a value (cutSyntax), a field the artifact always has is
// missing or its base64 stops mid-way (cutFields), or the last value stops
// at a boundary that still parses (cutTenant, cutIdentity).

// makers are the commands that print each artifact, and where they run.
var makers = map[string]struct {
	command string
	role    handshake.Role
}{
	authv1beta1.TenantKind:   {"generate tenant", handshake.KindTenant.Receiver().Other()},
	authv1beta1.IdentityKind: {"generate identity", handshake.KindIdentity.Receiver().Other()},
}

// truncatedError is the refusal of an artifact that looks cut short,
// worded like the nonce's: what is cut, then what to do.
func truncatedError(kind, detail string) error {
	m := makers[kind]
	return fmt.Errorf("%s %s: it looks truncated: copy the whole %s printed by `%s` on the %s", kind, detail, kind, m.command, m.role)
}

// requiredFields are the fields every handed-over artifact of a kind has,
// in the order the YAML encoders write them (keys sorted), so that the
// first one missing is where the text was cut. base64 marks []byte fields.
var requiredFields = map[string][]struct {
	path   string
	base64 bool
}{
	authv1beta1.TenantKind: {{"spec.clusterID", false}, {"spec.csr", true}, {"spec.publicKey", true}, {"spec.signature", true}},
	authv1beta1.IdentityKind: {{"spec.authParams.apiServer", false}, {"spec.authParams.ca", true}, {"spec.authParams.signedCRT", true},
		{"spec.clusterID", false}, {"spec.type", false}},
}

// optional tells the required fields an artifact may leave out: the CA
// (a provider whose API server has a public certificate), the certificate
// of an EKS Identity (its AWS keys stand for it).
func optional(m map[string]any, path string) bool {
	switch path {
	case "spec.authParams.ca":
		return true
	case "spec.authParams.signedCRT":
		return lookup(m, "spec.authParams.awsConfig") != nil
	}
	return false
}

// cutSyntax tells whether YAML or JSON that does not parse is the
// beginning of an artifact of kind: closed where it stops (an open string,
// brackets, a key without its colon), it parses as one.
func cutSyntax(doc []byte, kind string) string {
	for _, closed := range closings(string(doc)) {
		var v any
		if yaml.Unmarshal([]byte(closed), &v) != nil {
			continue
		}
		// {} is what is left of a lone "{".
		if m, ok := v.(map[string]any); ok && (m["kind"] == kind || len(m) == 0 || onlyCutHeader(v, kind)) {
			return "ends in the middle of a value"
		}
	}
	return ""
}

// closings are doc completed where it stops: its open string and flow
// brackets closed, its last line given the colon of a key, or that line
// dropped.
func closings(doc string) []string {
	doc = strings.TrimRight(doc, " \t\r\n") // the line break the document reader adds
	var stack []byte
	var quote byte
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			stack = append(stack, '}')
		case c == '[':
			stack = append(stack, ']')
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	closed := doc
	if quote != 0 {
		closed += string(quote)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		closed += string(stack[i])
	}
	return []string{closed, doc + ":", doc[:strings.LastIndexByte(doc, '\n')+1]}
}

// onlyCutHeader tells whether v is what is left of an artifact of kind cut
// in its first lines: a word that begins apiVersion or kind, or only those
// keys (or their beginnings) with the beginnings of their values.
func onlyCutHeader(v any, kind string) bool {
	want := map[string]string{"apiVersion": authv1beta1.GroupVersion.String(), "kind": kind}
	keyOf := func(s string) string {
		for k := range want {
			if strings.HasPrefix(k, s) {
				return k
			}
		}
		return ""
	}
	switch v := v.(type) {
	case string:
		return v != "" && keyOf(v) != ""
	case map[string]any:
		for k, val := range v {
			full := keyOf(k)
			if full == "" {
				return false
			}
			if val == nil {
				continue
			}
			// A value after a whole key only, and the beginning of it.
			if s, ok := val.(string); !ok || k != full || !strings.HasPrefix(want[full], s) {
				return false
			}
		}
		return len(v) > 0
	}
	return false
}

// cutFields finds, in a document of kind, the first field every such
// artifact has that is missing or whose base64 stops mid-way.
func cutFields(doc []byte, kind string) string {
	var m map[string]any
	if yaml.Unmarshal(doc, &m) != nil {
		return ""
	}
	spec, ok := m["spec"].(map[string]any)
	if !ok {
		return "has no spec"
	}
	// The encoders leave out what is empty: a key without a value is
	// where the text stops.
	if key := keyWithoutValue(spec); key != "" {
		return "spec." + key + " has no value"
	}
	for _, f := range requiredFields[kind] {
		v := lookup(m, f.path)
		s, isString := v.(string)
		switch {
		case v == nil || isString && s == "":
			if optional(m, f.path) {
				continue
			}
			return f.path + " is missing"
		case !isString:
			// The first characters of a value can read as a number.
			return f.path + " is cut short"
		case f.base64:
			if _, err := base64.StdEncoding.DecodeString(s); err != nil {
				return f.path + " is cut short"
			}
		}
	}
	return ""
}

// keyWithoutValue is the path, below m, of a key with no value ("").
func keyWithoutValue(m map[string]any) string {
	for k, v := range m {
		if v == nil {
			return k
		}
		if inner, ok := v.(map[string]any); ok {
			if key := keyWithoutValue(inner); key != "" {
				return k + "." + key
			}
		}
	}
	return ""
}

func lookup(m map[string]any, path string) any {
	var v any = m
	for _, key := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[key]
	}
	return v
}

// cutTenant finds the value of a decoded Tenant that stops at a boundary
// that still decodes: a PEM block without its end, a signature shorter
// than its key's, a condition's first letters.
func cutTenant(t *authv1beta1.Tenant) string {
	s := t.Spec
	switch {
	case pemCut(s.CSR):
		return "spec.csr is cut short"
	case pemCut(s.PublicKey):
		return "spec.publicKey is cut short"
	case signatureCut(s.PublicKey, s.Signature):
		return "spec.signature is cut short"
	case wordCut(string(s.TenantCondition), authv1beta1.TenantConditionActive, authv1beta1.TenantConditionCordoned, authv1beta1.TenantConditionDrained):
		return "spec.tenantCondition is cut short"
	}
	return ""
}

// cutIdentity is cutTenant for an Identity.
func cutIdentity(id *authv1beta1.Identity) string {
	p := id.Spec.AuthParams
	switch {
	case pemCut(p.CA):
		return "spec.authParams.ca is cut short"
	case pemCut(p.SignedCRT):
		return "spec.authParams.signedCRT is cut short"
	case wordCut(string(id.Spec.Type), authv1beta1.ControlPlaneIdentityType):
		return "spec.type is cut short"
	}
	return ""
}

// pemCut: PEM text without a whole END line (what follows one is not a
// cut, and validation names it).
func pemCut(b []byte) bool {
	if !bytes.HasPrefix(b, []byte("-----BEGIN ")) {
		return false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimRight(line, " \t\r")
		if bytes.HasPrefix(line, []byte("-----END ")) && bytes.HasSuffix(line, []byte("-----")) && len(line) >= len("-----END -----") {
			return false
		}
	}
	return true
}

// signatureCut: a signature shorter than its key makes (Ed25519, RSA), or
// an ECDSA one whose DER stops early.
func signatureCut(publicKey, sig []byte) bool {
	pub, err := authcrypto.ParsePublicKey(publicKey)
	if err != nil {
		return false
	}
	switch k := pub.(type) {
	case ed25519.PublicKey:
		return len(sig) < ed25519.SignatureSize
	case *rsa.PublicKey:
		return k.N != nil && len(sig) < k.Size()
	case *ecdsa.PublicKey:
		var rs struct{ R, S *big.Int }
		_, err := asn1.Unmarshal(sig, &rs)
		return err != nil && strings.Contains(err.Error(), "truncated")
	}
	return false
}

// wordCut: s is the first letters of one of words, not one of them.
func wordCut[T ~string](s string, words ...T) bool {
	if s == "" {
		return false
	}
	for _, w := range words {
		if string(w) == s {
			return false
		}
	}
	for _, w := range words {
		if strings.HasPrefix(string(w), s) {
			return true
		}
	}
	return false
}
