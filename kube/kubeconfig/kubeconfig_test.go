package kubeconfig_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/kubeconfig"
)

// Load follows the file's current context unless one is given, and names
// the file and context when it cannot use them.
func TestLoad(t *testing.T) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["a"] = &clientcmdapi.Cluster{Server: "https://a.example:6443"}
	cfg.Clusters["b"] = &clientcmdapi.Cluster{Server: "https://b.example:6443"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["ctx-a"] = &clientcmdapi.Context{Cluster: "a", AuthInfo: "u"}
	cfg.Contexts["ctx-b"] = &clientcmdapi.Context{Cluster: "b", AuthInfo: "u"}
	cfg.CurrentContext = "ctx-a"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))

	rc, current, err := kubeconfig.Load(path, "")
	require.NoError(t, err)
	assert.Equal(t, "https://a.example:6443", rc.Host)
	assert.Equal(t, "ctx-a", current)

	rc, current, err = kubeconfig.Load(path, "ctx-b")
	require.NoError(t, err)
	assert.Equal(t, "https://b.example:6443", rc.Host)
	assert.Equal(t, "ctx-b", current)

	_, _, err = kubeconfig.Load(path, "nope")
	assert.ErrorContains(t, err, "loading kubeconfig ("+path+", context nope)")

	require.NoError(t, os.WriteFile(path, []byte("kind: [\n"), 0o600))
	_, _, err = kubeconfig.Load(path, "")
	assert.ErrorContains(t, err, "reading kubeconfig ("+path+")")
}

// A file of another apiVersion or kind is named as not a kubeconfig:
// client-go's own error would repeat the apiVersion read, here the start
// of a base64 private key (a fuzzer's find).
func TestNotAKubeconfigRepeatsNothing(t *testing.T) {
	data := []byte("apiVersion: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0t\n")
	_, err := kubeconfig.ClientCertificate(data)
	assert.EqualError(t, err, "reading the kubeconfig: it is not a kubeconfig (apiVersion v1, kind Config): is it the right file?")
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	_, _, err = kubeconfig.Load(path, "")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "LS0t")
	assert.Contains(t, err.Error(), "it is not a kubeconfig")

	// A YAML conversion error quoting a value of the file (a fuzzer's find).
	_, err = kubeconfig.ClientCertificate([]byte("&a:\n b: \n c: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1DNENBUUF3QlFZREsyVndCQ0lFSUE\n"))
	assert.EqualError(t, err, "reading the kubeconfig: it is not a valid kubeconfig (the error would quote its content): is it the right file?")

	_, err = kubeconfig.ClientCertificate([]byte("current-context: " + strings.Repeat("A", 64) + "\n"))
	assert.EqualError(t, err, "the kubeconfig's current context (not a context name) has no client certificate")
	_, err = kubeconfig.ClientCertificate([]byte("current-context: admin@prod\n"))
	assert.EqualError(t, err, `the kubeconfig's current context "admin@prod" has no client certificate`)
}
