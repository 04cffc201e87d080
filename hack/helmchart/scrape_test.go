//go:build cluster

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labimage"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labpod"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// metricsService is the chart's Service in front of /metrics.
const metricsService = "liqo-auth-controller-metrics"

// scrapeImage is internal/testlab/cmd/lab-scrape's image on the Node.
var scrapeImage = labimage.LabRef("lab-scrape", "1")

// loadScraper builds lab-scrape and loads its image into the Node.
func loadScraper(ctx context.Context, n *lab.Node) error {
	bin, err := labimage.LabCommand(ctx, "lab-scrape")
	if err != nil {
		return err
	}
	return labimage.LoadWrapped(ctx, bin, scrapeImage, n)
}

// scrape is what lab-scrape reports of one URL.
type scrape struct {
	URL      string   `json:"url"`
	Status   int      `json:"status"`
	Families []string `json:"families"`
	Error    string   `json:"error"`
}

// scrapeFromPod scrapes /metrics as a Prometheus in the cluster does, from
// a Pod: through the metrics Service's ClusterIP (kube-proxy) and at each
// of its ready endpoints (what a ServiceMonitor scrapes), once the Service
// has replicas of them. It returns lab-scrape's report, the Service first.
func scrapeFromPod(t *testing.T, ctx context.Context, admin *kube.Cluster, replicas int) []scrape {
	t.Helper()
	svc, err := admin.Kube.CoreV1().Services(testNamespace).Get(ctx, metricsService, metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, svc.Spec.Ports, 1)
	port := strconv.Itoa(int(svc.Spec.Ports[0].Port))
	urls := []string{"http://" + net.JoinHostPort(svc.Spec.ClusterIP, port) + "/metrics"}
	eps := admin.Kube.DiscoveryV1().EndpointSlices(testNamespace)
	var ready []string
	_, err = kube.WaitFor(ctx, kube.ListWatch(eps.List, eps.Watch, kube.BySelector(discoveryv1.LabelServiceName+"="+metricsService)),
		"the metrics Service's endpoints", func(s *discoveryv1.EndpointSlice) (bool, error) {
			ready = ready[:0]
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready && len(e.Addresses) > 0 {
					ready = append(ready, e.Addresses[0])
				}
			}
			return len(ready) == replicas, nil
		})
	require.NoError(t, err)
	for _, ip := range ready {
		urls = append(urls, "http://"+net.JoinHostPort(ip, port)+"/metrics")
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "scrape-metrics", Namespace: testNamespace},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []corev1.Container{{Name: "scrape", Image: scrapeImage, ImagePullPolicy: corev1.PullNever, Args: urls}},
		},
	}
	msg, code, err := labpod.Run(ctx, admin, pod)
	require.NoError(t, err)
	var report []scrape
	require.NoError(t, json.Unmarshal([]byte(msg), &report), "lab-scrape's report: %q", msg)
	assert.Zero(t, code, "every scrape answered: %+v", report)
	t.Logf("scraped from a Pod: %+v", report)
	return report
}

// assertScraped: every URL answered 200, and some replica (the leader)
// counted its reconciles.
func assertScraped(t *testing.T, report []scrape) {
	t.Helper()
	var reconciles bool
	for _, s := range report {
		assert.Equal(t, 200, s.Status, "%s: %s", s.URL, s.Error)
		reconciles = reconciles || slices.Contains(s.Families, "liqo_auth_reconcile_total")
	}
	assert.True(t, reconciles, "liqo_auth_reconcile_total scraped: %s", fmt.Sprint(report))
}
