// Package labtest starts real control planes for tests: once per test
// package, on first use, shared by its tests, which keep apart by using
// their own cluster IDs and namespaces. A package whose tests need no
// cluster never starts one, so its pure tests run without the
// control-plane binaries.
//
//	var testLab = labtest.Lazy("provider", "consumer")
//
//	func TestMain(m *testing.M) { os.Exit(testLab.Run(m)) }
//
//	func TestSomething(t *testing.T) {
//		provider := testLab.Clusters(t)[0]
//		...
//	}
package labtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// StartTimeout bounds starting a lab.
const StartTimeout = 2 * time.Minute

// Lab is the lab of one test package: one cluster per name, started by the
// first test that asks for them and stopped by Run once all tests ran.
type Lab struct {
	opts  lab.Options
	names []string

	once     sync.Once
	clusters []*lab.Cluster
	err      error

	mu      sync.Mutex
	running bool // inside Run: somebody stops what starts
	started bool
}

// Lazy returns the lab of the named clusters, not started yet. Declare it
// once per package and run the tests through its Run.
func Lazy(names ...string) *Lab {
	return LazyWithOptions(lab.Options{}, names...)
}

// testControllerManagerQPS is the test labs' kube-controller-manager client
// rate limit (unless the options set one). Its namespace controller makes
// about two requests per namespaced resource type to empty a deleted
// namespace: at the default 20 QPS a test waiting for its namespaces to go
// waited ~5 s each time.
const testControllerManagerQPS = 200

// LazyWithOptions is Lazy with lab options.
func LazyWithOptions(opts lab.Options, names ...string) *Lab {
	if opts.ControllerManagerQPS == 0 {
		opts.ControllerManagerQPS = testControllerManagerQPS
	}
	return &Lab{opts: opts, names: names}
}

// Run runs the tests and stops the lab if a test started it. Use it from
// TestMain as os.Exit(l.Run(m)).
func (l *Lab) Run(m *testing.M) int {
	l.mu.Lock()
	l.running = true
	l.mu.Unlock()
	code := m.Run()
	l.mu.Lock()
	l.running = false
	started := l.started
	l.mu.Unlock()
	if started {
		l.once.Do(func() {}) // wait for a start still under way
		if err := lab.StopAll(l.clusters); err != nil {
			fmt.Fprintln(os.Stderr, "labtest: stopping clusters:", err)
		}
	}
	return code
}

// Clusters returns the lab's clusters, in the order of their names,
// starting them on first use. When they cannot start (the control-plane
// binaries are missing: `make kube-binaries` builds them) the test fails;
// it is never skipped.
func (l *Lab) Clusters(t testing.TB) []*lab.Cluster {
	t.Helper()
	l.mu.Lock()
	if !l.running {
		l.mu.Unlock()
		t.Fatal("labtest: the package's TestMain must run the tests through Lab.Run, which stops the lab")
	}
	l.started = true
	l.mu.Unlock()
	l.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		start := time.Now()
		l.clusters, l.err = lab.Start(ctx, l.opts, l.names...)
		if l.err == nil {
			t.Logf("labtest: started %v in %s", l.names, time.Since(start).Round(time.Millisecond))
		}
	})
	if l.err != nil {
		t.Fatalf("labtest: starting the lab %v: %v", l.names, l.err)
	}
	return l.clusters
}

// Context returns a context bounded for one test step.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// UnreachableKubeconfig writes a kubeconfig whose server refuses
// connections (a port that was just closed) and returns its path and the
// server's address. It needs no cluster.
func UnreachableKubeconfig(t testing.TB) (path, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "down.kubeconfig")
	if err := lab.WriteKubeconfig(path, "down", &rest.Config{Host: "https://" + addr, BearerToken: "unused"}); err != nil {
		t.Fatal(err)
	}
	return path, addr
}

// Pair is the provider and consumer of a two-cluster lab (clusters 0 and 1),
// each initialized with its cluster ID in a Liqo namespace of its own
// ("liqo-<id>"), so that tests with different cluster IDs stay apart.
func (l *Lab) Pair(t testing.TB, providerID, consumerID string) (provider, consumer *kube.Cluster) {
	t.Helper()
	cs := l.Clusters(t)
	ctx := Context(t)
	return InitCluster(t, ctx, cs[0], "liqo-"+providerID, providerID), InitCluster(t, ctx, cs[1], "liqo-"+consumerID, consumerID)
}

// InitCluster connects to lc in namespace ns and runs init with cluster ID id.
func InitCluster(t testing.TB, ctx context.Context, lc *lab.Cluster, ns, id string) *kube.Cluster {
	t.Helper()
	c, err := kube.NewCluster(lc.Config, ns)
	require.NoError(t, err)
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: id})
	require.NoError(t, err)
	return c
}
