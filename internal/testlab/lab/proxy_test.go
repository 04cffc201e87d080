package lab_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
)

// syncBuffer is a log the proxy writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// connect asks the proxy for a tunnel to target and returns the status line.
func connect(t *testing.T, proxy *lab.Proxy, target string) string {
	u, err := url.Parse(proxy.URL())
	require.NoError(t, err)
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	require.NoError(t, err)
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSpace(line)
}

func TestConnectProxyTunnelsOnlyToLoopbackAndStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var log syncBuffer
	proxy, err := lab.StartConnectProxy(ctx, &log)
	require.NoError(t, err)
	defer proxy.Stop()
	require.True(t, strings.HasPrefix(proxy.URL(), "http://127.0.0.1:"), proxy.URL())

	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "through") }))
	defer server.Close()
	target := strings.TrimPrefix(server.URL, "https://")

	// An HTTPS client with the proxy gets the answer through a tunnel.
	client := server.Client()
	proxyURL, err := url.Parse(proxy.URL())
	require.NoError(t, err)
	client.Transport.(*http.Transport).Proxy = http.ProxyURL(proxyURL)
	client.Timeout = 5 * time.Second
	resp, err := client.Get(server.URL)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "through", string(body))
	client.CloseIdleConnections()

	// Anything but a loopback IP is refused before any dial.
	assert.Equal(t, "HTTP/1.1 403 Forbidden", connect(t, proxy, "192.0.2.1:443"))
	assert.Equal(t, "HTTP/1.1 403 Forbidden", connect(t, proxy, "localhost:443"))
	assert.Equal(t, []lab.ProxyConnect{{Target: target, Status: 200}, {Target: "192.0.2.1:443", Status: 403}, {Target: "localhost:443", Status: 403}},
		proxy.Connects())
	assert.Contains(t, log.String(), "CONNECT "+target+" 200 OK\n")

	// Stopped, it refuses connections, open tunnels included.
	proxy.Stop()
	_, err = net.DialTimeout("tcp", proxyURL.Host, time.Second)
	require.Error(t, err)
	_, err = client.Get(server.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "proxyconnect")
}

func TestConnectProxyStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	proxy, err := lab.StartConnectProxy(ctx, nil)
	require.NoError(t, err)
	cancel()
	done := make(chan struct{})
	go func() { proxy.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not stop with its context")
	}
}
