package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// MaxSize bounds what we read as an artifact: real ones are a few KiB, so
// anything far larger is a wrong file.
const MaxSize = 256 << 10

// ParseNonce reads a nonce as pasted or saved: surrounding blanks and a
// trailing newline are dropped, the rest must be a Liqo nonce.
func ParseNonce(data []byte) (string, error) {
	if len(data) > MaxSize {
		return "", fmt.Errorf("nonce input is %d bytes: a nonce is %d characters", len(data), authcrypto.NonceLength)
	}
	nonce := strings.TrimSpace(string(data))
	if nonce == "" {
		return "", errors.New("nonce is empty: pass the nonce printed by `create nonce` on the provider")
	}
	if err := authcrypto.ValidateNonce(nonce); err != nil {
		return "", fmt.Errorf("%w: copy the whole nonce printed by `create nonce` on the provider", err)
	}
	return nonce, nil
}

// DecodeTenant reads exactly one Tenant from YAML or JSON.
func DecodeTenant(data []byte) (*authv1beta1.Tenant, error) {
	t := &authv1beta1.Tenant{}
	if err := decodeOne(data, authv1beta1.TenantKind, t); err != nil {
		return nil, err
	}
	if detail := cutTenant(t); detail != "" {
		return nil, truncatedError(authv1beta1.TenantKind, detail)
	}
	return t, nil
}

// DecodeIdentity reads exactly one Identity from YAML or JSON.
func DecodeIdentity(data []byte) (*authv1beta1.Identity, error) {
	id := &authv1beta1.Identity{}
	if err := decodeOne(data, authv1beta1.IdentityKind, id); err != nil {
		return nil, err
	}
	if detail := cutIdentity(id); detail != "" {
		return nil, truncatedError(authv1beta1.IdentityKind, detail)
	}
	return id, nil
}

func decodeOne(data []byte, kind string, into any) error {
	article := "a " + kind
	if strings.ContainsAny(kind[:1], "AEIOU") {
		article = "an " + kind
	}
	if len(data) > MaxSize {
		return fmt.Errorf("input is %d KiB, larger than any %s (limit %d KiB): is it the right file?", len(data)>>10, kind, MaxSize>>10)
	}
	docs, err := documents(data)
	if err != nil {
		return fmt.Errorf("input is not valid YAML or JSON: %w", oneLine(err))
	}
	switch len(docs) {
	case 0:
		return fmt.Errorf("input is empty: expected %s", article)
	case 1:
	default:
		return fmt.Errorf("input holds %d YAML documents: expected exactly one, %s", len(docs), article)
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(docs[0], &meta); err != nil {
		var v any
		if yaml.Unmarshal(docs[0], &v) == nil {
			if onlyCutHeader(v, kind) {
				return truncatedError(kind, "ends before its spec")
			}
			if _, ok := v.(map[string]any); !ok {
				return fmt.Errorf("input is not a YAML or JSON object: expected %s; is it the right file?", article)
			}
		}
		if detail := cutSyntax(docs[0], kind); detail != "" {
			return truncatedError(kind, detail)
		}
		return fmt.Errorf("input is not valid YAML or JSON: %w", oneLine(err))
	}
	if meta.Kind != kind || meta.APIVersion != authv1beta1.GroupVersion.String() {
		var v any
		if yaml.Unmarshal(docs[0], &v) == nil && onlyCutHeader(v, kind) {
			return truncatedError(kind, "ends before its spec")
		}
	}
	if meta.Kind != kind {
		got := meta.Kind
		switch {
		case got == "":
			got = "no kind"
		case !echoable(got):
			got = "of an unknown kind"
		}
		return fmt.Errorf("input is %s, expected %s", got, article)
	}
	if meta.APIVersion != authv1beta1.GroupVersion.String() {
		got := "another apiVersion"
		if echoable(meta.APIVersion) {
			got = fmt.Sprintf("apiVersion %q", meta.APIVersion)
		}
		return fmt.Errorf("%s has %s, expected %q", kind, got, authv1beta1.GroupVersion.String())
	}
	err = yaml.UnmarshalStrict(docs[0], into)
	// A field no artifact has is not a cut: that error stays.
	if err == nil || !strings.Contains(err.Error(), "unknown field") {
		if detail := cutFields(docs[0], kind); detail != "" {
			return truncatedError(kind, detail)
		}
	}
	if err != nil {
		return fmt.Errorf("invalid %s: %w", kind, oneLine(err))
	}
	return nil
}

// oneLine puts a YAML error on one line: for several problems the YAML
// library writes one a line. An error quoting what may be key data (a
// value or field name of the input: a line of a pasted key) is replaced.
func oneLine(err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if base64Run.MatchString(msg) {
		return errors.New("its details would quote the input; is it the right file?")
	}
	return errors.New(msg)
}

// base64Run is text in an error that may be key or certificate data: the
// YAML and JSON libraries' own words never hold 32 such characters in a row.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=]{32,}`)

// echoable tells whether a kind or apiVersion read from the input may be
// repeated in an error: a short name, not a line of a pasted file (which
// could be a private key) nor a line break.
func echoable(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '/' || r == '-') {
			return false
		}
	}
	return true
}

// documents splits YAML (or JSON) into its non-empty documents.
func documents(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// Encode renders an artifact as YAML (default) or JSON.
func Encode(obj any, format string) ([]byte, error) {
	switch format {
	case "", "yaml":
		return yaml.Marshal(obj)
	case "json":
		b, err := json.MarshalIndent(obj, "", "  ")
		return append(b, '\n'), err
	}
	return nil, fmt.Errorf("unknown output format %q: use yaml or json", format)
}

// TenantFingerprint is the SHA-256 fingerprint of the consumer key in a
// Tenant, for both admins to compare out of band.
func TenantFingerprint(t *authv1beta1.Tenant) (string, error) {
	pub, err := authcrypto.ParsePublicKey(t.Spec.PublicKey)
	if err != nil {
		return "", err
	}
	return authcrypto.Fingerprint(pub)
}

// IdentityCAFingerprint is the fingerprint of the provider CA in an
// Identity ("" when it carries none).
func IdentityCAFingerprint(id *authv1beta1.Identity) (string, error) {
	if len(id.Spec.AuthParams.CA) == 0 {
		return "", nil
	}
	return authcrypto.CertificateFingerprint(id.Spec.AuthParams.CA)
}
