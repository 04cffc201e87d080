// Package labtest starts real control planes for tests: once per test
// package (TestMain), shared by its tests, which keep apart by using their
// own cluster IDs and namespaces.
package labtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

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
