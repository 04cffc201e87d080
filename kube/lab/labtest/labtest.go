// Package labtest starts real control planes for tests: once per test
// package (TestMain), shared by its tests, which keep apart by using their
// own cluster IDs and namespaces.
package labtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/lab"
)

// Main starts one cluster per name, stores them in *clusters, runs the
// tests and stops the clusters. Use it as os.Exit(labtest.Main(m, &cs, ...)).
// A missing binary fails the run (it never skips): `make test` builds them.
func Main(m *testing.M, clusters *[]*lab.Cluster, names ...string) int {
	return MainWithOptions(m, lab.Options{}, clusters, names...)
}

// MainWithOptions is Main with lab options.
func MainWithOptions(m *testing.M, opts lab.Options, clusters *[]*lab.Cluster, names ...string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := lab.Start(ctx, opts, names...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "labtest:", err)
		return 1
	}
	*clusters = cs
	code := m.Run()
	if err := lab.StopAll(cs); err != nil {
		fmt.Fprintln(os.Stderr, "labtest: stopping clusters:", err)
	}
	return code
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
