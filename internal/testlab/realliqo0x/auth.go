package realliqo0x

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/liqoproc"
)

// AuthOptions say what one auth-service process runs as.
type AuthOptions struct {
	// ClusterID and ClusterName are the ones given to Install.
	ClusterID, ClusterName string
	// Address is host:port to listen on, the InstallOptions.AuthAddress of
	// the same cluster (FreeAddress picks one).
	Address string
	// DisableAuthentication runs it with --enable-authentication=false (the
	// chart's auth.config.enableAuthentication=false): any token is accepted.
	DisableAuthentication bool
	// APIServerAddress is --advertise-api-server-address, the API server URL
	// it hands out in identities: lab clusters have no control-plane Node to
	// derive it from.
	APIServerAddress string
	// Args are more auth-service flags.
	Args []string
}

// AuthServer is a running auth-service.
type AuthServer struct {
	// URL is https://<Address>, the ForeignCluster's foreignAuthUrl.
	URL string
	// CertPEM is its self-signed serving certificate (no SAN, like the chart's).
	CertPEM []byte
}

// FreeAddress returns 127.0.0.1:<a port free right now>, for an auth server.
func FreeAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// StartAuthService runs Liqo's own auth-service against the cluster of
// kubeconfig (Install it first: it reads the peering ClusterRoles once, at
// start) with the chart's TLS flags, until the test ends. It returns once the
// server answers GET /ids, so its auth-token Secret exists by then. Its logs
// go to t.Log.
func StartAuthService(t testing.TB, kubeconfig string, o AuthOptions) *AuthServer {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if o.ClusterID == "" || o.ClusterName == "" || o.Address == "" || o.APIServerAddress == "" {
		t.Fatal("realliqo0x.StartAuthService: ClusterID, ClusterName, Address and APIServerAddress are required")
	}
	certPath, keyPath, certPEM, err := writeAuthServerPair(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{
		"--cluster-id=" + o.ClusterID,
		"--cluster-name=" + o.ClusterName,
		"--namespace=" + Namespace,
		"--address=" + o.Address,
		"--enable-tls",
		"--cert-path=" + certPath,
		"--key-path=" + keyPath,
		"--enable-authentication=" + strconv.FormatBool(!o.DisableAuthentication),
		"--advertise-api-server-address=" + o.APIServerAddress,
	}, o.Args...)
	name := "auth-service[" + o.ClusterName + "]"
	p := liqoproc.Start(t, name, filepath.Join(dir, authServiceBin), args, []string{"KUBECONFIG=" + kubeconfig}, nil)
	srv := &AuthServer{URL: "https://" + o.Address, CertPEM: certPEM}
	if err := waitServing(t.Context(), p, srv.URL+"/ids"); err != nil {
		t.Fatalf("%s not serving: %v (its log is above)", name, err)
	}
	t.Logf("auth-service (Liqo %s) serving %s for cluster %s (authentication enabled: %t)", LiqoVersion, srv.URL, o.ClusterID, !o.DisableAuthentication)
	return srv
}

// waitServing polls url until it answers 200: the auth server logs nothing
// once it listens (http.ListenAndServeTLS), so the only readiness signal is
// an answer. Bounded by StartTimeout; a process that exits ends the wait.
func waitServing(ctx context.Context, p *liqoproc.Process, url string) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		// Readiness only: the certificate is self-signed without SAN, as in the chart.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // see above
	}}
	defer client.CloseIdleConnections()
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, StartTimeout, true, func(ctx context.Context) (bool, error) {
		if err := p.ExitErr(); err != nil {
			return false, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return false, nil // not listening yet
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}
