package main_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/transport"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/burst"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// BenchmarkScaleTenants is the scale benchmark: 1,000 synthetic
// consumers (real Ed25519 keys, nonces, signatures and CSRs) apply their
// Tenants at once to one lab provider served by the controller binary,
// running as its ServiceAccount in its own process. It prints the time until
// the last status.authParams is filled, the per-tenant latency (filled −
// created), the controller's API requests per tenant (from its /metrics),
// CPU and peak RSS; then, in the same run and on a fresh set of names, the
// raw floor: a plain client doing per tenant CSR create + approve + wait
// for the certificate (one shared watch) + a Secret + a RoleBinding, with
// the same client concurrency.
//
// The lab is its own (kube-controller-manager at 1000 QPS, so that CSR
// signing is not capped at ~20/s); the package's shared lab is not started
// for it. LIQO_AUTH_SCALE_TENANTS and LIQO_AUTH_SCALE_CONCURRENCY change the
// size (run smaller sizes with -benchtime=1x), LIQO_AUTH_SCALE_CONTROLLER_ARGS
// adds controller flags (space-separated), LIQO_AUTH_SCALE_LOG keeps the
// controller's log in that file, LIQO_AUTH_SCALE_PROFILE writes CPU
// profiles of the controller and the lab's kube-apiserver into that folder
// and LIQO_AUTH_SCALE_BINARY runs another controller build;
// LIQO_AUTH_SCALE_FLOORS=0 runs the controller phase alone (to profile it).
func BenchmarkScaleTenants(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(envString("LIQO_AUTH_SCALE_TENANTS", "1000"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(b, err, "LIQO_AUTH_SCALE_TENANTS: sizes separated by commas")
		sizes = append(sizes, n)
	}
	conc := envInt(b, "LIQO_AUTH_SCALE_CONCURRENCY", 32)
	b.StopTimer()
	var runs []*scaleRun
	for i := range b.N {
		for _, n := range sizes {
			runs = append(runs, runScale(b, n, conc, fmt.Sprintf("scale%d", i)))
		}
	}
	if len(sizes) > 1 && os.Getenv("LIQO_AUTH_SCALE_FLOORS") != "0" {
		reportSideBySide(runs)
	}
}

// runScale measures one size on a lab of its own, so that a size does not
// inherit the objects (and the ClusterRoleBindings every authorization
// walks) of the one before.
func runScale(b *testing.B, n, conc int, prefix string) *scaleRun {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	others := childProcesses()
	cs, err := lab.Start(ctx, lab.Options{ControllerManagerQPS: 1000}, "scale")
	require.NoError(b, err)
	defer func() { _ = lab.StopAll(cs) }()
	// The scale lab's etcd, kube-apiserver and kube-controller-manager: the
	// children that were not there before it started.
	var labPIDs []int
	for pid := range childProcesses() {
		if _, ok := others[pid]; !ok {
			labPIDs = append(labPIDs, pid)
		}
	}
	cfg := rest.CopyConfig(cs[0].Config)
	cfg.QPS = -1                  // the benchmark's own client is not the bottleneck
	cfg.DisableCompression = true // nor its watches' gzip
	admin, err := kube.NewCluster(cfg, "liqo-scale")
	require.NoError(b, err)
	_, err = admin.Init(ctx, kube.InitOptions{ClusterID: "scale-provider"})
	require.NoError(b, err)
	_, err = admin.InstallController(ctx, "")
	require.NoError(b, err)
	sa := serviceAccountConfig(b, ctx, admin, cs[0])

	s := &scaleRun{b: b, ctx: ctx, admin: admin, sa: sa, lab: cs[0], labPIDs: labPIDs, n: n, conc: conc, prefix: prefix}
	if os.Getenv("LIQO_AUTH_SCALE_FLOORS") == "0" { // profiling the controller alone
		s.controllerPhase()
		s.apiServerRSSKiB = processRSSKiB(b, s.labPIDs, "kube-apiserver")
		s.reportControllerOnly()
		return s
	}
	s.floorBefore = s.floorPhase("b", s.sa, false)
	s.controllerPhase()
	s.floorAfter = s.floorPhase("f", s.sa, false)
	s.adminFloor = s.floorPhase("a", s.admin.Config, false)
	// The protocol floor sees the ClusterRoleBindings grow from none to n,
	// as the controller did: the controller phase's are removed first.
	s.removeConsumerBindings()
	s.protocolFloor = s.floorPhase("p", s.sa, true)
	s.apiServerRSSKiB = processRSSKiB(b, s.labPIDs, "kube-apiserver")
	s.report()
	return s
}

type scaleRun struct {
	b     *testing.B
	ctx   context.Context
	admin *kube.Cluster
	// sa authenticates as the controller's ServiceAccount: the controller
	// and the floor's plain client both use it, so that both pay the same
	// authentication, authorization and priority-and-fairness path.
	sa     *rest.Config
	lab    *lab.Cluster
	n      int
	conc   int
	prefix string
	// labPIDs are the scale lab's processes, whose CPU is reported per phase.
	labPIDs []int

	// controller phase
	total                     time.Duration
	latencies                 []time.Duration
	labCPU                    map[string]time.Duration // by command name
	machine                   machineCPU               // until the last status
	requests, startupRequests map[string]float64       // verb resource -> count
	cpu                       time.Duration
	rssKiB                    int64
	apiServerRSSKiB           int64 // the lab kube-apiserver's peak RSS (VmHWM)
	reconciles                float64
	controllerArgs            string

	// The reference of the ratio is the mean of two floors as the
	// controller's ServiceAccount, one before and one after the controller
	// phase: they bracket the cluster it saw (its ClusterRoleBindings, which
	// every authorization walks, grow from none to n during it), and two
	// samples halve the noise of a shared 2-CPU machine. adminFloor is the
	// same work as cluster-admin, whose requests skip authorization and
	// priority and fairness: shown, not compared with.
	floorBefore, floorAfter, adminFloor floorRun
	// protocolFloor is every request the protocol makes per Tenant, by a
	// plain client: the floor's, plus the consumer's Tenant create (as in
	// the controller phase), the ClusterRoleBinding and the status update.
	// What the controller costs beyond it is its own.
	protocolFloor floorRun
}

// floorTime is the reference of the ratio.
func (s *scaleRun) floorTime() time.Duration { return (s.floorBefore.total + s.floorAfter.total) / 2 }

// floorRun is what one floor phase measured.
type floorRun struct {
	total     time.Duration
	latencies []time.Duration
	labCPU    map[string]time.Duration
	machine   machineCPU
	requests  int64
}

func (s *scaleRun) ids(kind string) []string {
	ids := make([]string, s.n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%s-%04d", s.prefix, kind, i)
	}
	return ids
}

// controllerPhase measures the controller serving n Tenants applied at once.
func (s *scaleRun) controllerPhase() {
	b, ctx := s.b, s.ctx
	ids := s.ids("c")
	// The consumers: real keys, the provider's nonces (filled beforehand,
	// the nonce creator is not what is measured), signatures and CSRs.
	tenants := make([]*authv1beta1.Tenant, s.n)
	burst.Parallel(b, s.conc, s.n, func(i int) (err error) {
		tenants[i], err = burst.SyntheticConsumer(ctx, s.admin, ids[i])
		return err
	})

	// The controller binary, as its ServiceAccount, in its own process.
	ctl := s.startController()
	defer ctl.stop()
	before := ctl.metrics(b)
	s.startupRequests = apiRequestCounts(before)
	cpu0 := ctl.cpu(b)

	// Filled statuses are watched (no polling) by an informer started
	// before the clock.
	var mu sync.Mutex
	filled := map[string]time.Time{}
	all := make(chan struct{})
	defer s.watchTenants(func(t *authv1beta1.Tenant) {
		if t.Status.AuthParams == nil || len(t.Status.AuthParams.SignedCRT) == 0 || !strings.HasPrefix(t.Name, s.prefix+"-c-") {
			return
		}
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if _, seen := filled[t.Name]; !seen {
			filled[t.Name] = now
			if len(filled) == s.n {
				close(all)
			}
		}
	})()

	created := make([]time.Time, s.n)
	lab0, machine0 := processCPU(s.labPIDs), readMachineCPU(b)
	profiled := s.profile(ctl, "controller")
	b.StartTimer()
	start := time.Now()
	burst.Parallel(b, s.conc, s.n, func(i int) error {
		created[i] = time.Now()
		_, err := s.admin.Liqo.Tenants(tenants[i].Namespace).Create(ctx, tenants[i], metav1.CreateOptions{})
		return err
	})
	select {
	case <-all:
		s.machine = readMachineCPU(b).since(machine0)
		s.saveHeap(ctl)
	case <-time.After(15 * time.Minute):
		mu.Lock()
		got := len(filled)
		mu.Unlock()
		b.Fatalf("only %d of %d Tenants got their status in 15 minutes", got, s.n)
	}
	mu.Lock()
	var last time.Time
	for i, id := range ids {
		at := filled[id]
		s.latencies = append(s.latencies, at.Sub(created[i]))
		if at.After(last) {
			last = at
		}
	}
	mu.Unlock()
	s.total = last.Sub(start)
	b.StopTimer()

	// What the Tenants cost includes what follows their status (Events,
	// the re-check the status update triggers): wait until it is quiet.
	profiled.Wait()
	after := ctl.quiesce(b)
	s.labCPU = diffCPU(processCPU(s.labPIDs), lab0)
	s.cpu = ctl.cpu(b) - cpu0
	s.rssKiB = ctl.rssKiB(b)
	s.requests = diffCounts(apiRequestCounts(after), s.startupRequests)
	s.reconciles = sumSeries(after, "liqo_auth_reconcile_total", `controller="tenant"`) - sumSeries(before, "liqo_auth_reconcile_total", `controller="tenant"`)
	s.controllerArgs = strings.Join(ctl.args, " ")

	// Sanity: what the statuses promise is there.
	rbs, err := s.admin.Kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{LabelSelector: kube.ManagedByLabel + "=" + kube.LiqoManagedByValue})
	require.NoError(b, err)
	crbs, err := s.admin.Kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{LabelSelector: kube.ManagedByLabel + "=" + kube.LiqoManagedByValue})
	require.NoError(b, err)
	require.GreaterOrEqual(b, len(rbs.Items), s.n, "RoleBindings")
	require.GreaterOrEqual(b, len(crbs.Items), s.n, "ClusterRoleBindings")
}

// watchTenants runs an informer on every Tenant (synced before it returns)
// that calls seen on each add and update, until the returned stop.
func (s *scaleRun) watchTenants(seen func(*authv1beta1.Tenant)) (stop func()) {
	tenantClient := s.admin.Liqo.Tenants("")
	inf := cache.NewSharedIndexInformer(kube.ListWatch(tenantClient.List, tenantClient.Watch, func(*metav1.ListOptions) {}),
		&authv1beta1.Tenant{}, 0, nil)
	check := func(obj any) {
		if t, ok := obj.(*authv1beta1.Tenant); ok {
			seen(t)
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: check, UpdateFunc: func(_, cur any) { check(cur) }})
	require.NoError(s.b, err)
	ctx, cancel := context.WithCancel(s.ctx)
	go inf.RunWithContext(ctx)
	require.True(s.b, cache.WaitForCacheSync(ctx.Done(), inf.HasSynced))
	return cancel
}

// removeConsumerBindings deletes the consumers' ClusterRoleBindings (those
// labelled with a remote cluster ID) and waits until they are gone.
func (s *scaleRun) removeConsumerBindings() {
	crbs := s.admin.Kube.RbacV1().ClusterRoleBindings()
	selector := metav1.ListOptions{LabelSelector: kube.RemoteClusterIDLabel}
	require.NoError(s.b, crbs.DeleteCollection(s.ctx, metav1.DeleteOptions{}, selector))
	left, err := crbs.List(s.ctx, selector)
	require.NoError(s.b, err)
	require.Empty(s.b, left.Items, "consumers' ClusterRoleBindings left after their deletion")
}

// floorPhase measures the raw work on a fresh set of names (kind tells
// them apart): per tenant a CSR create + approve + wait for the certificate
// (one shared watch, started before the clock) + a Secret + a RoleBinding,
// with the same concurrency, by a plain client authenticated by as. The
// protocol floor also creates the consumer's Tenant first (as cluster-admin,
// as the controller phase does, with the same Tenant watch running) and
// ends with the ClusterRoleBinding and the Tenant's status.
func (s *scaleRun) floorPhase(kind string, as *rest.Config, protocol bool) floorRun {
	b, ctx := s.b, s.ctx
	ids := s.ids(kind)
	csrs := make([][]byte, s.n)
	tenants := make([]*authv1beta1.Tenant, s.n)
	burst.Parallel(b, s.conc, s.n, func(i int) error {
		if protocol {
			var err error
			if tenants[i], err = burst.SyntheticConsumer(ctx, s.admin, ids[i]); err == nil {
				csrs[i] = tenants[i].Spec.CSR
			}
			return err
		}
		key, err := authcrypto.GenerateKey(authcrypto.KeyEd25519)
		if err != nil {
			return err
		}
		if csrs[i], err = authcrypto.NewCSR(key, ids[i]); err != nil {
			return err
		}
		_, err = s.admin.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: kube.TenantNamespaceName(ids[i])}}, metav1.CreateOptions{})
		return err
	})

	if protocol {
		defer s.watchTenants(func(*authv1beta1.Tenant) {})()
	}

	// A plain client, counted.
	var count atomic.Int64
	cfg := rest.CopyConfig(as)
	cfg.QPS = -1
	cfg.WrapTransport = transport.Wrappers(cfg.WrapTransport, func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) { count.Add(1); return rt.RoundTrip(r) })
	})
	c, err := kube.NewCluster(cfg, s.admin.Namespace)
	require.NoError(b, err)

	const floorLabel = "liqo-auth-tui.io/scale-floor"
	var mu sync.Mutex
	waiting := map[string]chan []byte{}
	certs := map[string][]byte{}
	csrClient := c.Kube.CertificatesV1().CertificateSigningRequests()
	inf := cache.NewSharedIndexInformer(kube.ListWatch(csrClient.List, csrClient.Watch, kube.BySelector(floorLabel+"="+s.prefix+kind)),
		&certv1.CertificateSigningRequest{}, 0, nil)
	check := func(obj any) {
		csr, ok := obj.(*certv1.CertificateSigningRequest)
		if !ok || len(csr.Status.Certificate) == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if ch := waiting[csr.Name]; ch != nil {
			ch <- csr.Status.Certificate
			delete(waiting, csr.Name)
		} else if _, done := certs[csr.Name]; !done {
			certs[csr.Name] = csr.Status.Certificate // signed before its waiter registered
		}
	}
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: check, UpdateFunc: func(_, cur any) { check(cur) }})
	require.NoError(b, err)
	infCtx, stopInf := context.WithCancel(ctx)
	defer stopInf()
	go inf.RunWithContext(infCtx)
	require.True(b, cache.WaitForCacheSync(infCtx.Done(), inf.HasSynced))
	count.Store(0)

	var f floorRun
	f.latencies = make([]time.Duration, s.n)
	lab0, machine0 := processCPU(s.labPIDs), readMachineCPU(b)
	profiled := s.profile(nil, "floor-"+kind)
	defer profiled.Wait()
	start := time.Now()
	burst.Parallel(b, s.conc, s.n, func(i int) error {
		t0 := time.Now()
		ns := kube.TenantNamespaceName(ids[i])
		var tenant *authv1beta1.Tenant
		if protocol {
			var err error
			if tenant, err = s.admin.Liqo.Tenants(ns).Create(ctx, tenants[i], metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		created, err := csrClient.Create(ctx, &certv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "floor-", Labels: map[string]string{floorLabel: s.prefix + kind}},
			Spec: certv1.CertificateSigningRequestSpec{Request: csrs[i], SignerName: kube.KubeAPIServerClientSignerName,
				Usages: []certv1.KeyUsage{certv1.UsageDigitalSignature, certv1.UsageKeyEncipherment, certv1.UsageClientAuth}},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		ch := make(chan []byte, 1)
		mu.Lock()
		if cert, ok := certs[created.Name]; ok {
			ch <- cert
		} else {
			waiting[created.Name] = ch
		}
		mu.Unlock()
		// Updates go without managed fields (the server keeps its own), as
		// the controller's do: the floor is the cheapest plain client.
		created.ManagedFields = nil
		created.Status.Conditions = append(created.Status.Conditions, certv1.CertificateSigningRequestCondition{
			Type: certv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Floor", Message: "scale benchmark floor"})
		if _, err := csrClient.UpdateApproval(ctx, created.Name, created, metav1.UpdateOptions{}); err != nil {
			return err
		}
		var cert []byte
		select {
		case cert = <-ch:
		case <-time.After(2 * time.Minute):
			return fmt.Errorf("no certificate for CSR %s", created.Name)
		}
		if _, err := c.Kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: floorSecretName, Namespace: ns,
				Labels: map[string]string{kube.RemoteClusterIDLabel: ids[i]}},
			Data: map[string][]byte{kube.RemoteCertCSRField: csrs[i], kube.RemoteCertCertificateField: cert},
		}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if _, err := c.Kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: kube.RoleBindingName(kube.RemoteControlPlaneClusterRole), Namespace: ns},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: ids[i]}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: kube.RemoteControlPlaneClusterRole},
		}, metav1.CreateOptions{}); err != nil {
			return err
		}
		if protocol {
			if _, err := c.BindTenantClusterWideKnown(ctx, ids[i], []string{kube.RemoteClusterWideClusterRole}, func(string) bool { return false }); err != nil {
				return err
			}
			tenant.ManagedFields = nil
			tenant.Status = authv1beta1.TenantStatus{TenantNamespace: ns,
				AuthParams: &authv1beta1.AuthParams{SignedCRT: cert, CA: s.admin.Config.CAData, APIServer: s.admin.Server}}
			if _, err := c.Liqo.Tenants(ns).UpdateStatus(ctx, tenant, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		f.latencies[i] = time.Since(t0)
		return nil
	})
	f.total = time.Since(start)
	f.machine = readMachineCPU(b).since(machine0)
	f.labCPU = diffCPU(processCPU(s.labPIDs), lab0)
	f.requests = count.Load()
	return f
}

// machineCPU is what this machine's CPUs did so far (/proc/stat, all
// CPUs): busy, idle, and steal, the time the hypervisor gave to others while
// they wanted it, which shows when a slow run was a busy host.
type machineCPU struct{ busy, idle, steal time.Duration }

func readMachineCPU(b testing.TB) machineCPU {
	raw, err := os.ReadFile("/proc/stat")
	require.NoError(b, err)
	line, _, _ := strings.Cut(string(raw), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	require.GreaterOrEqual(b, len(fields), 9, "/proc/stat")
	tick := func(i int) time.Duration {
		n, err := strconv.ParseInt(fields[i], 10, 64)
		require.NoError(b, err)
		return time.Duration(n) * 10 * time.Millisecond // USER_HZ = 100
	}
	return machineCPU{busy: tick(1) + tick(2) + tick(3) + tick(6) + tick(7), idle: tick(4) + tick(5), steal: tick(8)}
}

func (m machineCPU) since(before machineCPU) machineCPU {
	return machineCPU{busy: m.busy - before.busy, idle: m.idle - before.idle, steal: m.steal - before.steal}
}

// busyShare is the share of the CPUs' time spent working.
func (m machineCPU) busyShare() float64 {
	total := m.busy + m.idle + m.steal
	if total <= 0 {
		return 0
	}
	return float64(m.busy) / float64(total)
}

// profile, when LIQO_AUTH_SCALE_PROFILE names a folder, writes CPU
// profiles of the controller (when given) and of the lab's kube-apiserver
// over the next LIQO_AUTH_SCALE_PROFILE_SECONDS (default 10) into it.
func (s *scaleRun) profile(ctl *scaleController, phase string) *sync.WaitGroup {
	var wg sync.WaitGroup
	dir := os.Getenv("LIQO_AUTH_SCALE_PROFILE")
	if dir == "" {
		return &wg
	}
	seconds := strconv.Itoa(envInt(s.b, "LIQO_AUTH_SCALE_PROFILE_SECONDS", 10))
	save := func(name string, body []byte, err error) {
		if err != nil {
			s.b.Logf("profile %s: %v", name, err)
			return
		}
		_ = os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	if ctl != nil {
		wg.Go(func() {
			resp, err := http.Get(strings.TrimSuffix(ctl.metricsURL, "/metrics") + "/debug/pprof/profile?seconds=" + seconds)
			if err != nil {
				save(phase+"-controller.pprof", nil, err)
				return
			}
			defer resp.Body.Close()
			var buf strings.Builder
			_, err = io.Copy(&buf, resp.Body)
			save(phase+"-controller.pprof", []byte(buf.String()), err)
		})
	}
	wg.Go(func() {
		body, err := s.admin.Kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").Param("seconds", seconds).
			Timeout(2 * time.Minute).DoRaw(s.ctx)
		save(phase+"-kube-apiserver.pprof", body, err)
	})
	return &wg
}

// floorSecretName names the floor's certificate Secrets: the same write
// as the controller's liqo-remote-certificate, under a name the
// controller's cache of those Secrets does not hold (the floor before the
// controller phase would otherwise add n Secrets to it).
const floorSecretName = "scale-floor-certificate"

// deploymentMemoryLimit is the controller container's memory limit in
// assets/deploy/controller/deployment.yaml.
const deploymentMemoryLimit = "256Mi"

// reportSideBySide prints what one Tenant cost at each size measured.
func reportSideBySide(runs []*scaleRun) {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "\n== per Tenant, side by side ==\n%-52s", "")
	for _, r := range runs {
		fmt.Fprintf(w, " %12s", fmt.Sprintf("%d", r.n))
	}
	fmt.Fprintln(w)
	row := func(label string, cell func(r *scaleRun) string) {
		fmt.Fprintf(w, "%-52s", label)
		for _, r := range runs {
			fmt.Fprintf(w, " %12s", cell(r))
		}
		fmt.Fprintln(w)
	}
	perTenant := func(d time.Duration, n int) string { return fmt.Sprintf("%.2fms", ms(d)/float64(n)) }
	row("time until the last status, per Tenant", func(r *scaleRun) string { return perTenant(r.total, r.n) })
	row("mean floor SA time, per Tenant", func(r *scaleRun) string { return perTenant(r.floorTime(), r.n) })
	row("controller time / mean floor SA time", func(r *scaleRun) string { return fmt.Sprintf("%.2fx", r.total.Seconds()/r.floorTime().Seconds()) })
	row("protocol floor time / mean floor SA time", func(r *scaleRun) string {
		return fmt.Sprintf("%.2fx", r.protocolFloor.total.Seconds()/r.floorTime().Seconds())
	})
	row("controller time / protocol floor time", func(r *scaleRun) string {
		return fmt.Sprintf("%.2fx", r.total.Seconds()/r.protocolFloor.total.Seconds())
	})
	row("API requests per Tenant (all but the Lease)", func(r *scaleRun) string { return fmt.Sprintf("%.3f", r.requestsPerTenant()) })
	row("controller CPU per Tenant", func(r *scaleRun) string { return perTenant(r.cpu, r.n) })
	row("lab kube-apiserver CPU per Tenant (controller phase)", func(r *scaleRun) string { return perTenant(r.labCPU["kube-apiserver"], r.n) })
	row("lab kube-apiserver CPU per Tenant (floor SA before)", func(r *scaleRun) string { return perTenant(r.floorBefore.labCPU["kube-apiserver"], r.n) })
	row("lab kube-apiserver CPU per Tenant (floor SA after)", func(r *scaleRun) string { return perTenant(r.floorAfter.labCPU["kube-apiserver"], r.n) })
	row("controller peak RSS", func(r *scaleRun) string { return fmt.Sprintf("%.1fMiB", float64(r.rssKiB)/1024) })
	row("lab kube-apiserver peak RSS", func(r *scaleRun) string { return fmt.Sprintf("%.0fMiB", float64(r.apiServerRSSKiB)/1024) })
}

// saveHeap, when LIQO_AUTH_SCALE_PROFILE names a folder, writes the
// controller's heap profile (taken when the last status is filled) into it.
func (s *scaleRun) saveHeap(ctl *scaleController) {
	dir := os.Getenv("LIQO_AUTH_SCALE_PROFILE")
	if dir == "" {
		return
	}
	resp, err := http.Get(strings.TrimSuffix(ctl.metricsURL, "/metrics") + "/debug/pprof/heap")
	if err != nil {
		s.b.Logf("heap profile: %v", err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("controller-heap-%d.pprof", s.n)), body, 0o644)
	}
	if err != nil {
		s.b.Logf("heap profile: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// requestsPerTenant counts every request but the leader Lease renewals
// (they come with time, not with Tenants).
func (s *scaleRun) requestsPerTenant() float64 {
	var total float64
	for k, v := range s.requests {
		if _, resource, _ := strings.Cut(k, " "); resource != "leases" {
			total += v
		}
	}
	return total / float64(s.n)
}

// watchesPerTenant: an informer's watches come back when the API server
// drops a watcher it finds too slow, not per Tenant (a per-CSR wait would
// be one per Tenant), so they are shown apart.
func (s *scaleRun) watchesPerTenant() float64 {
	var watches float64
	for k, v := range s.requests {
		if verb, _, _ := strings.Cut(k, " "); verb == "watch" {
			watches += v
		}
	}
	return watches / float64(s.n)
}

func (s *scaleRun) report() {
	b := s.b
	n := float64(s.n)
	perTenant, watchPerTenant := s.requestsPerTenant(), s.watchesPerTenant()
	ratio := s.total.Seconds() / s.floorTime().Seconds()
	var startup float64
	for _, v := range s.startupRequests {
		startup += v
	}
	// The columns: the controller, then the floors in the order they ran.
	w := bufio.NewWriter(os.Stdout)
	ctl := floorRun{total: s.total, latencies: s.latencies, labCPU: s.labCPU, machine: s.machine}
	cols := []floorRun{ctl, s.floorBefore, s.floorAfter, s.adminFloor, s.protocolFloor}
	line := func(label string, cell func(i int, r floorRun) string) {
		fmt.Fprintf(w, "%-44s", label)
		for i, r := range cols {
			fmt.Fprintf(w, " %13s", cell(i, r))
		}
		fmt.Fprintln(w)
	}
	text := func(ctlCell string) func(int, floorRun) string {
		return func(i int, _ floorRun) string {
			if i == 0 {
				return ctlCell
			}
			return "-"
		}
	}
	latency := func(q int) func(int, floorRun) string {
		return func(_ int, r floorRun) string {
			p50, p95, max := percentiles(r.latencies)
			return fmt.Sprintf("%.0fms", ms([]time.Duration{p50, p95, max}[q]))
		}
	}

	fmt.Fprintf(w, "\n== scale: %d Tenants applied at once to one lab provider (client concurrency %d) ==\n", s.n, s.conc)
	fmt.Fprintf(w, "controller: %s\n", s.controllerArgs)
	fmt.Fprintf(w, "raw floor: a plain client as the controller's ServiceAccount before and after the controller (their mean is the reference), then as cluster-admin;\n")
	fmt.Fprintf(w, "protocol floor: a plain client making every request of the protocol (+ Tenant create, ClusterRoleBinding, status update) as the ServiceAccount\n")
	fmt.Fprintf(w, "%-44s %13s %13s %13s %13s %13s\n", "", "controller", "floor SA (1)", "floor SA (2)", "floor admin", "protocol")
	line("time until the last status / last binding", func(_ int, r floorRun) string { return fmt.Sprintf("%.2fs", r.total.Seconds()) })
	fmt.Fprintln(w, "per-tenant latency (controller: created → status filled; floor: its own sequence)")
	line("per-tenant latency p50", latency(0))
	line("per-tenant latency p95", latency(1))
	line("per-tenant latency max", latency(2))
	line("API requests per tenant (all but the Lease)", func(i int, r floorRun) string {
		if i == 0 {
			return fmt.Sprintf("%.2f", perTenant)
		}
		return fmt.Sprintf("%.2f", float64(r.requests)/n)
	})
	line("  of which watches", text(fmt.Sprintf("%.2f", watchPerTenant)))
	line("  reads and writes (the rest)", text(fmt.Sprintf("%.2f", perTenant-watchPerTenant)))
	line("controller CPU (user+sys) during the run", text(fmt.Sprintf("%.2fs", s.cpu.Seconds())))
	line("controller CPU per tenant", text(fmt.Sprintf("%.2fms", ms(s.cpu)/n)))
	line("controller peak RSS (VmHWM)", text(fmt.Sprintf("%.1fMiB", float64(s.rssKiB)/1024)))
	line("lab kube-apiserver peak RSS (whole run)", text(fmt.Sprintf("%.0fMiB", float64(s.apiServerRSSKiB)/1024)))
	line("Tenant reconciles per tenant", text(fmt.Sprintf("%.2f", s.reconciles/n)))
	for _, name := range []string{"kube-apiserver", "etcd", "kube-controller"} {
		line("lab "+name+" CPU", func(_ int, r floorRun) string { return fmt.Sprintf("%.2fs", r.labCPU[name].Seconds()) })
	}
	line("lab (+ controller) CPU per tenant", func(i int, r floorRun) string {
		var sum time.Duration
		for _, v := range r.labCPU {
			sum += v
		}
		if i == 0 {
			sum += s.cpu
		}
		return fmt.Sprintf("%.1fms", ms(sum)/n)
	})
	line("machine CPUs busy (until the last status)", func(_ int, r floorRun) string { return fmt.Sprintf("%.0f%%", 100*r.machine.busyShare()) })
	line("CPU stolen by the host (steal, all CPUs)", func(_ int, r floorRun) string { return fmt.Sprintf("%.2fs", r.machine.steal.Seconds()) })
	fmt.Fprintf(w, "%-44s %12.2fx\n", "controller time / floor admin time", s.total.Seconds()/s.adminFloor.total.Seconds())
	fmt.Fprintf(w, "%-44s %12.2fx\n", "controller time / mean floor SA time (target ≤ 1.5 at 1,000, ≤ 2 at 10,000)", ratio)
	fmt.Fprintf(w, "%-44s %12.2fx\n", "protocol floor time / mean floor SA time (the protocol's own share)", s.protocolFloor.total.Seconds()/s.floorTime().Seconds())
	fmt.Fprintf(w, "%-44s %12.2fx\n", "controller time / protocol floor time (what the controller adds)", s.total.Seconds()/s.protocolFloor.total.Seconds())
	fmt.Fprintf(w, "%-44s %12.3f %12s\n", "requests per tenant (target ≤ 6.5)", perTenant, "")
	fmt.Fprintf(w, "%-44s %12.3f %12s\n", "  without watches", perTenant-watchPerTenant, "")
	fmt.Fprintf(w, "controller API requests during the run (after its start-up: %.0f requests, lists and watches):\n", startup)
	keys := make([]string, 0, len(s.requests))
	for k, v := range s.requests {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return s.requests[keys[i]] > s.requests[keys[j]] })
	for _, k := range keys {
		fmt.Fprintf(w, "  %-46s %8.0f %6.2f/tenant  %s\n", k, s.requests[k], s.requests[k]/n, requestReason(k))
	}
	_ = w.Flush()

	p50, p95, _ := percentiles(s.latencies)
	b.ReportMetric(s.total.Seconds(), "s-last-status")
	b.ReportMetric(ms(p50), "ms-p50")
	b.ReportMetric(ms(p95), "ms-p95")
	b.ReportMetric(perTenant, "req/tenant")
	b.ReportMetric(perTenant-watchPerTenant, "rw/tenant")
	b.ReportMetric(s.floorTime().Seconds(), "s-floor")
	b.ReportMetric(ratio, "x-floor")
	b.ReportMetric(s.cpu.Seconds(), "s-cpu")
	b.ReportMetric(float64(s.rssKiB)/1024, "MiB-rss")
}

// reportControllerOnly prints the controller phase of a run without floors.
func (s *scaleRun) reportControllerOnly() {
	n := float64(s.n)
	p50, p95, max := percentiles(s.latencies)
	fmt.Printf("\n== scale: %d Tenants, controller only (LIQO_AUTH_SCALE_FLOORS=0: no floor, no ratio) ==\n", s.n)
	fmt.Printf("time until the last status %.2fs (%.2fms per Tenant), latency p50/p95/max %.0f/%.0f/%.0fms\n",
		s.total.Seconds(), ms(s.total)/n, ms(p50), ms(p95), ms(max))
	fmt.Printf("requests per Tenant %.3f, controller CPU per Tenant %.2fms, controller peak RSS %.1fMiB, kube-apiserver CPU per Tenant %.2fms, peak RSS %.0fMiB\n",
		s.requestsPerTenant(), ms(s.cpu)/n, float64(s.rssKiB)/1024, ms(s.labCPU["kube-apiserver"])/n, float64(s.apiServerRSSKiB)/1024)
}

// requestReasons says why the controller makes each kind of request (the
// protocol's sections: ../shared/liqo-auth-protocol.md).
var requestReasons = map[string]string{
	"create certificatesigningrequests":           "the consumer's certificate: one CSR per Tenant (§6.3)",
	"update certificatesigningrequests/approval":  "approving it: the signer signs approved CSRs only (§6.3)",
	"create secrets":                              "the certificate cache liqo-remote-certificate: a re-run reuses it (§6.3)",
	"create rolebindings":                         "the consumer's rights in its tenant namespace (§6.5.1)",
	"create clusterrolebindings":                  "its cluster-wide binding (§6.5.2)",
	"update tenants/status":                       "status.authParams, what the consumer waits for (§6.4)",
	"update tenants":                              "the finalizer, on a Tenant applied without it (liqoctl's)",
	"create events":                               "Events for humans: one per object, or one per burst of the same reason (> 32 held at once)",
	"update leases":                               "leader election: renewing the Lease every 2 s (not per Tenant)",
	"deletecollection certificatesigningrequests": "the CSR cleaner: issued CSRs deleted, 256 at a time, when idle",
	"delete certificatesigningrequests":           "the CSR cleaner: an issued CSR outside the batches (or of a batch whose deletecollection failed), one at a time",
}

// requestReason is why the controller makes requests of kind k: an
// informer's watch seen during the run is one resumed (the API server drops
// a watcher that falls behind in a burst, or ends it after its timeout).
func requestReason(k string) string {
	if reason, ok := requestReasons[k]; ok {
		return reason
	}
	if strings.HasPrefix(k, "watch ") {
		return "a watch resumed: the API server drops a watcher that falls behind in a burst, or after its timeout"
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentiles(d []time.Duration) (p50, p95, max time.Duration) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.50), at(0.95), s[len(s)-1]
}

func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(b testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	i, err := strconv.Atoi(v)
	require.NoError(b, err, name)
	return i
}

// scaleController is the controller binary running for the benchmark.
type scaleController struct {
	cmd        *exec.Cmd
	args       []string
	metricsURL string
	exited     chan error
	log        string
}

// serviceAccountConfig authenticates as the controller's ServiceAccount,
// with a token from the TokenRequest API.
func serviceAccountConfig(b testing.TB, ctx context.Context, admin *kube.Cluster, l *lab.Cluster) *rest.Config {
	expiry := int64(3600)
	tr, err := admin.Kube.CoreV1().ServiceAccounts(admin.Namespace).CreateToken(ctx, "liqo-auth-controller",
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	require.NoError(b, err)
	cfg := rest.AnonymousClientConfig(l.Config)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

func (s *scaleRun) startController() *scaleController {
	b := s.b
	dir := b.TempDir()
	kubeconfig := filepath.Join(dir, "sa.kubeconfig")
	require.NoError(b, lab.WriteKubeconfig(kubeconfig, "scale", s.sa))

	health, metrics := freeAddrTB(b), freeAddrTB(b)
	// The Deployment's container limit, passed as the Deployment does.
	args := []string{"--liqo-namespace", s.admin.Namespace, "--identity", "scale-0",
		"--health-address", health, "--metrics-address", metrics, "--memory-limit", deploymentMemoryLimit}
	if os.Getenv("LIQO_AUTH_SCALE_PROFILE") != "" {
		args = append(args, "--profiling")
	}
	args = append(args, strings.Fields(os.Getenv("LIQO_AUTH_SCALE_CONTROLLER_ARGS"))...)
	bin := binary
	if other := os.Getenv("LIQO_AUTH_SCALE_BINARY"); other != "" {
		bin = other // another build, to compare
	}
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	logPath := filepath.Join(dir, "controller.log")
	log, err := os.Create(logPath)
	require.NoError(b, err)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(b, cmd.Start())
	ctl := &scaleController{cmd: cmd, args: args, metricsURL: "http://" + metrics + "/metrics", exited: make(chan error, 1), log: logPath}
	go func() { ctl.exited <- cmd.Wait(); log.Close() }()

	// Ready = leading and caches synced (before the clock: polling is fine).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get("http://" + health + "/readyz")
		if err == nil {
			body := make([]byte, 64)
			n, _ := resp.Body.Read(body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body[:n]), "leading") {
				break
			}
		}
		select {
		case err := <-ctl.exited:
			out, _ := os.ReadFile(logPath)
			b.Fatalf("controller exited: %v\n%s", err, out)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatal("controller not ready in 2 minutes")
		}
	}
	return ctl
}

func freeAddrTB(b testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	defer l.Close()
	return l.Addr().String()
}

func (c *scaleController) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	if keep := os.Getenv("LIQO_AUTH_SCALE_LOG"); keep != "" {
		if out, err := os.ReadFile(c.log); err == nil {
			_ = os.WriteFile(keep, out, 0o644)
		}
	}
}

// metrics reads the controller's /metrics as series -> value.
func (c *scaleController) metrics(b testing.TB) map[string]float64 {
	resp, err := http.Get(c.metricsURL)
	require.NoError(b, err)
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	require.NoError(b, sc.Err())
	return out
}

// quiesce waits until the controller's request and reconcile counters stood
// still for two seconds with its queues empty, and returns the metrics then.
func (c *scaleController) quiesce(b testing.TB) map[string]float64 {
	var last float64 = -1
	stable := 0
	deadline := time.Now().Add(3 * time.Minute)
	for {
		m := c.metrics(b)
		sum := sumSeries(m, "liqo_auth_reconcile_total", "")
		for k, v := range apiRequestCounts(m) {
			if !strings.HasSuffix(k, " leases") {
				sum += v
			}
		}
		if sum == last && sumSeries(m, "liqo_auth_workqueue_depth", "") == 0 {
			stable++
		} else {
			stable = 0
		}
		last = sum
		if stable >= 4 || time.Now().After(deadline) {
			return m
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// apiRequestCounts sums liqo_auth_api_requests_total by "verb resource".
func apiRequestCounts(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for series, v := range m {
		if !strings.HasPrefix(series, "liqo_auth_api_requests_total{") {
			continue
		}
		labels := parseLabels(series)
		out[labels["verb"]+" "+labels["resource"]] += v
	}
	return out
}

func parseLabels(series string) map[string]string {
	out := map[string]string{}
	i := strings.IndexByte(series, '{')
	if i < 0 {
		return out
	}
	for _, kv := range strings.Split(strings.TrimSuffix(series[i+1:], "}"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}

func sumSeries(m map[string]float64, name, labelFilter string) float64 {
	var sum float64
	for series, v := range m {
		if (series == name || strings.HasPrefix(series, name+"{")) && strings.Contains(series, labelFilter) {
			sum += v
		}
	}
	return sum
}

func diffCounts(after, before map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		out[k] = v - before[k]
	}
	return out
}

// childProcesses returns the command names of this process's children by pid.
func childProcesses() map[int]string {
	out := map[int]string{}
	self := strconv.Itoa(os.Getpid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, fields, ok := procStat(pid)
		if ok && len(fields) > 1 && fields[1] == self {
			out[pid] = comm
		}
	}
	return out
}

// procStat reads /proc/<pid>/stat: the command name and the fields after
// it (state first, so field n of proc(5) is at index n-3).
func procStat(pid int) (comm string, fields []string, ok bool) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", nil, false
	}
	s := string(raw)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open || end+2 > len(s) {
		return "", nil, false
	}
	return s[open+1 : end], strings.Fields(s[end+2:]), true
}

// processCPU sums the user+system CPU of processes by command name.
func processCPU(pids []int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, pid := range pids {
		comm, f, ok := procStat(pid)
		if !ok || len(f) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(f[14-3], 10, 64)
		stime, _ := strconv.ParseInt(f[15-3], 10, 64)
		out[comm] += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return out
}

func diffCPU(after, before map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for k, v := range after {
		out[k] = v - before[k]
	}
	return out
}

// cpu is the controller's user+system CPU time so far.
func (c *scaleController) cpu(b testing.TB) time.Duration {
	// utime is field 14 and stime 15, in clock ticks (USER_HZ, 100 on Linux).
	_, f, ok := procStat(c.cmd.Process.Pid)
	require.True(b, ok, "reading the controller's /proc stat")
	utime, err := strconv.ParseInt(f[14-3], 10, 64)
	require.NoError(b, err)
	stime, err := strconv.ParseInt(f[15-3], 10, 64)
	require.NoError(b, err)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// rssKiB is the controller's peak resident set size.
func (c *scaleController) rssKiB(b testing.TB) int64 { return peakRSSKiB(b, c.cmd.Process.Pid) }

// peakRSSKiB is a process's peak resident set (VmHWM).
func peakRSSKiB(b testing.TB, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(b, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(b, err)
			return kib
		}
	}
	b.Fatal("no VmHWM")
	return 0
}

// processRSSKiB is the peak RSS of the process of pids named comm.
func processRSSKiB(b testing.TB, pids []int, comm string) int64 {
	for _, pid := range pids {
		if name, _, ok := procStat(pid); ok && strings.HasPrefix(comm, name) {
			return peakRSSKiB(b, pid)
		}
	}
	return 0
}
