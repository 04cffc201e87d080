package lab

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Bounds of the proxy: reading a CONNECT request and dialing its target.
const (
	proxyHandshakeTimeout = 10 * time.Second
	proxyDialTimeout      = 5 * time.Second
)

// ProxyConnect is one CONNECT request the proxy answered.
type ProxyConnect struct {
	Target string // host:port asked for
	Status int    // the status answered: 200 when the tunnel was opened
}

// Proxy is an HTTP CONNECT proxy on 127.0.0.1, for tests and the demo: the
// consumer's kubeconfig (proxy-url) reaches a lab API server through it. It
// tunnels only to loopback IP addresses, logs every CONNECT, and stops with
// Stop or its context.
type Proxy struct {
	ln   net.Listener
	log  io.Writer
	done chan struct{}
	wg   sync.WaitGroup

	mu       sync.Mutex
	connects []ProxyConnect
	conns    map[net.Conn]struct{}
	stopped  bool
}

// StartConnectProxy starts a proxy on a free 127.0.0.1 port. Each CONNECT
// is kept for Connects and, when log is not nil, written to it as a line
// "CONNECT host:port 200 OK".
func StartConnectProxy(ctx context.Context, log io.Writer) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the CONNECT proxy: %w", err)
	}
	p := &Proxy{ln: ln, log: log, done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.serve)
	p.wg.Go(func() {
		select {
		case <-ctx.Done():
			p.close()
		case <-p.done:
		}
	})
	return p, nil
}

// URL is the proxy's address as a kubeconfig's proxy-url: http://127.0.0.1:PORT.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Connects returns the CONNECT requests answered so far, in order.
func (p *Proxy) Connects() []ProxyConnect {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProxyConnect(nil), p.connects...)
}

// Stop closes the listener and every open tunnel, and waits for them:
// afterwards the port refuses connections.
func (p *Proxy) Stop() {
	p.close()
	p.wg.Wait()
}

func (p *Proxy) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.done)
	_ = p.ln.Close()
	for c := range p.conns {
		_ = c.Close()
	}
}

// track registers a connection to close on Stop; false when stopped.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed by Stop
		}
		if p.track(c) {
			p.wg.Go(func() { p.handle(c) })
		}
	}
}

// handle answers one CONNECT and pipes the tunnel until either side ends.
func (p *Proxy) handle(c net.Conn) {
	defer p.untrack(c)
	_ = c.SetDeadline(time.Now().Add(proxyHandshakeTimeout))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	target, status := req.Host, http.StatusOK
	var up net.Conn
	switch {
	case req.Method != http.MethodConnect:
		status = http.StatusMethodNotAllowed
	case !loopbackTarget(target):
		status = http.StatusForbidden // never a way out of the machine
	default:
		if up, err = net.DialTimeout("tcp", target, proxyDialTimeout); err != nil || !p.track(up) {
			status = http.StatusBadGateway
		}
	}
	p.record(target, status)
	if _, err := fmt.Fprintf(c, "HTTP/1.1 %d %s\r\n\r\n", status, http.StatusText(status)); err != nil || status != http.StatusOK {
		if up != nil {
			p.untrack(up)
		}
		return
	}
	defer p.untrack(up)
	_ = c.SetDeadline(time.Time{})
	ended := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, br); ended <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); ended <- struct{}{} }()
	<-ended
	_ = c.Close()
	_ = up.Close()
	<-ended
}

func (p *Proxy) record(target string, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.connects = append(p.connects, ProxyConnect{Target: target, Status: status})
	if p.log != nil {
		fmt.Fprintf(p.log, "CONNECT %s %d %s\n", target, status, http.StatusText(status))
	}
}

// loopbackTarget tells whether host:port names a loopback IP address.
func loopbackTarget(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port == "" {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
