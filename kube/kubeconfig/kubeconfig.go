package kubeconfig

import (
	"crypto/x509"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
)

// Describe names a kubeconfig file ("" = the default one) and context for
// error messages.
func Describe(path, context string) string {
	where := path
	if where == "" {
		where = "default kubeconfig"
	}
	if context != "" {
		where += ", context " + context
	}
	return where
}

// Load reads the kubeconfig at path (or, for "", the one the KUBECONFIG
// merge rules give) with context (or its current one, for ""). It returns
// the client configuration and the name of the context it used. It does
// not contact the API server.
func Load(path, context string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: context})
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("reading kubeconfig (%s): %w", Describe(path, context), notKubeconfig(err))
	}
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("loading kubeconfig (%s): %w", Describe(path, context), notKubeconfig(err))
	}
	if context == "" {
		context = raw.CurrentContext
	}
	return cfg, context, nil
}

// ClientCertificate parses the client certificate of a kubeconfig's
// current context: for a peering user's, its CN is the user and its O the
// group (liqo.io). Nothing else of the kubeconfig (its key) is read.
func ClientCertificate(kubeconfig []byte) (*x509.Certificate, error) {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", notKubeconfig(err))
	}
	ctxt := cfg.Contexts[cfg.CurrentContext]
	if ctxt == nil || cfg.AuthInfos[ctxt.AuthInfo] == nil || len(cfg.AuthInfos[ctxt.AuthInfo].ClientCertificateData) == 0 {
		return nil, fmt.Errorf("the kubeconfig's current context %s has no client certificate", quoteName(cfg.CurrentContext))
	}
	return authcrypto.ParseCertificatePEM(cfg.AuthInfos[ctxt.AuthInfo].ClientCertificateData)
}

// notKubeconfig replaces the errors of client-go that repeat what it read
// from the file, which may be any text, such as a line of a private key
// pasted in the wrong place: "no kind … is registered for version …" names
// the apiVersion and kind read, and YAML conversion errors quote values.
func notKubeconfig(err error) error {
	if runtime.IsNotRegisteredError(err) || strings.Contains(err.Error(), " is registered for version ") {
		return errors.New("it is not a kubeconfig (apiVersion v1, kind Config): is it the right file?")
	}
	if base64Run.MatchString(err.Error()) {
		return errors.New("it is not a valid kubeconfig (the error would quote its content): is it the right file?")
	}
	return err
}

// base64Run is text in an error that may be key or certificate data: no
// message of client-go holds 32 such characters in a row of its own.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=]{32,}`)

// quoteName quotes a name read from a kubeconfig for an error, unless it
// is too long to be one (a line of a key or certificate is 64 characters).
func quoteName(name string) string {
	if len(name) > 63 || strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return "(not a context name)"
	}
	return strconv.Quote(name)
}
