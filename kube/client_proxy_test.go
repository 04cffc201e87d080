package kube_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func TestParseProxyURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:3128", "https://proxy.example:443", "socks5://10.0.0.1:1080", "http://user:pw@proxy:8118"} {
		u, err := kube.ParseProxyURL(ok)
		require.NoError(t, err, ok)
		assert.Equal(t, ok, u.String())
	}
	u, err := kube.ParseProxyURL("")
	assert.NoError(t, err)
	assert.Nil(t, u)
	for bad, want := range map[string]string{
		"127.0.0.1:3128":     "not a URL",
		"proxy:3128":         "scheme must be http, https or socks5",
		"ftp://proxy:21":     "scheme must be http, https or socks5",
		"http://":            "no host",
		"http://:3128":       "no host",
		"http://proxy:99999": "not between 1 and 65535",
		"http://proxy:0":     "not between 1 and 65535",
		"http://pro xy:1":    "not a URL",
	} {
		_, err := kube.ParseProxyURL(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), want, bad)
	}
}

// closedAddr is a loopback address that refuses connections.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A proxy that is down is named in one line, with what to check; no
// cluster is needed since the request never leaves the machine.
func TestConnectThroughDownProxyFailsNamingTheProxy(t *testing.T) {
	proxy, server := "http://"+closedAddr(t), "https://"+closedAddr(t)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "unused"}
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))

	c, err := kube.Connect(kube.KubeconfigOptions{Path: path, ProxyURL: proxy})
	require.NoError(t, err)
	assert.Equal(t, proxy, c.Proxy)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, _, err = c.WhoAmI(ctx)
	var reach *kube.ReachError
	require.True(t, errors.As(err, &reach), "got %v", err)
	assert.Equal(t, kube.FailureProxy, reach.Class)
	assert.Equal(t, "cannot reach the API server "+server+" through the proxy "+proxy+
		": connect: connection refused (is the proxy running? check its address: --proxy-url, or proxy-url in the kubeconfig)", err.Error())

	// A bad proxy is refused before any request.
	_, err = kube.Connect(kube.KubeconfigOptions{Path: path, ProxyURL: "ftp://x:1"})
	assert.ErrorContains(t, err, "scheme must be http, https or socks5")

	// The kubeconfig's own proxy-url wins over the option.
	cfg.Clusters["c"].ProxyURL = "http://" + closedAddr(t)
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	c, err = kube.Connect(kube.KubeconfigOptions{Path: path, ProxyURL: proxy})
	require.NoError(t, err)
	assert.Equal(t, cfg.Clusters["c"].ProxyURL, c.Proxy)

	// Without a proxy, nothing changes.
	direct, err := kube.NewCluster(&rest.Config{Host: server}, "")
	require.NoError(t, err)
	assert.Empty(t, direct.Proxy)
}
