//go:build cluster

package kube_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// Observe reports what is there once listed, then after every change,
// deletions included, and returns nil when its context ends.
func TestObserveReportsEveryChange(t *testing.T) {
	ctx := labtest.Context(t)
	c, err := kube.NewCluster(clusters(t)[0].Config, "")
	require.NoError(t, err)
	ns := "observe-test"
	_, err = c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cms := c.Kube.CoreV1().ConfigMaps(ns)
	create := func(name string) {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"observed": "yes"}}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	create("a")

	reports := make(chan string, 100)
	observeCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- kube.Observe(observeCtx, kube.ListWatch(cms.List, cms.Watch, kube.BySelector("observed=yes")), func(list []*corev1.ConfigMap) {
			names := make([]string, 0, len(list))
			for _, cm := range list {
				names = append(names, cm.Name)
			}
			sort.Strings(names)
			reports <- strings.Join(names, ",")
		})
	}()
	until := func(want string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case got := <-reports:
				if got == want {
					return
				}
			case <-deadline:
				t.Fatalf("no report %q", want)
			}
		}
	}
	until("a")
	create("b")
	until("a,b")
	require.NoError(t, cms.Delete(ctx, "a", metav1.DeleteOptions{}))
	until("b")
	stop()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Observe did not return once its context ended")
	}
}
