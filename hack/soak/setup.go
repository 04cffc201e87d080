package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

const (
	providerID = "soak-provider"
	sliceName  = "soak"
)

func consumerID(i int) string { return fmt.Sprintf("soak-consumer-%03d", i) }

// consumerAPIServerArgs make a consumer's kube-apiserver cheaper: no watch
// cache (its few objects are read through informers of one controller),
// no admission a consumer's objects do not need, no profiling endpoints.
var consumerAPIServerArgs = map[string]string{
	"watch-cache": "false",
	"disable-admission-plugins": "ServiceAccount,ResourceQuota,LimitRanger,Priority,DefaultTolerationSeconds," +
		"DefaultStorageClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,RuntimeClass,DefaultIngressClass," +
		"MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy," +
		"CertificateApproval,CertificateSigning,CertificateSubjectRestriction,ClusterTrustBundleAttest,TaintNodesByCondition,PodSecurity",
	"profiling": "false",
}

// consumerAPIServerEnv caps a consumer's kube-apiserver heap: it keeps
// about 77 MiB live, and Go's default GC lets the heap reach twice that
// (about 200 MiB each, proportional set size); capped, about 150 MiB, so
// that 100 consumers fit in the development machine's 23 GiB. A 100 MiB
// cap made its GC run all the time (28% of a CPU each instead of 1.5%).
var consumerAPIServerEnv = []string{"GOMEMLIMIT=128MiB"}

// consumerControllerArgs: a consumer's controller serves the consumer's
// side only, as one replica whose Lease (the commands look for it) is
// renewed every 15 s instead of every 2 s: 100 controllers renewing every
// 2 s starved the 2-CPU machine, and a controller that cannot renew in
// time stops leading, which starved it more.
var consumerControllerArgs = []string{"--provider=false",
	"--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s", "--leader-elect-retry-period=15s"}

// lab is what the soak runs on: the provider with its two controller
// replicas, the consumers each with its controller.
type soakLab struct {
	cfg       Config
	etcd      *lab.Etcd
	provider  *lab.Cluster
	providerC *kube.Cluster
	consumers []*consumer
	replicas  []*controllerProcess
}

type consumer struct {
	id      string
	cluster *lab.Cluster
	admin   *kube.Cluster
	ctl     *controllerProcess
}

// start brings everything up: clusters, Init, the controllers, and every
// consumer authenticated with a ResourceSlice.
func start(ctx context.Context, cfg Config, progress func(string, ...any)) (s *soakLab, err error) {
	s = &soakLab{cfg: cfg}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	if s.etcd, err = lab.StartEtcd(""); err != nil {
		return s, err
	}
	if s.provider, err = lab.StartCluster(ctx, "provider", lab.Options{Dir: cfg.Dir, SigningDuration: cfg.SigningDuration,
		ControllerManagerQPS: 200}); err != nil {
		return s, err
	}
	if s.providerC, err = initCluster(ctx, s.provider.Config, providerID); err != nil {
		return s, err
	}
	if _, err = s.providerC.InstallController(ctx, ""); err != nil {
		return s, err
	}
	saKubeconfig, err := s.serviceAccountKubeconfig(ctx)
	if err != nil {
		return s, err
	}
	for _, identity := range []string{"provider-a", "provider-b"} {
		p, err := startController(cfg, identity, saKubeconfig, []string{fineHeapProfile}, "--memory-limit", "256Mi")
		if err != nil {
			return s, err
		}
		s.replicas = append(s.replicas, p)
	}
	progress("provider up, its controller's 2 replicas started; starting %d consumers", cfg.Consumers)

	s.consumers = make([]*consumer, cfg.Consumers)
	var started atomic.Int64
	// A few at a time: an API server's start takes a CPU for seconds.
	if err := parallel(ctx, 4, cfg.Consumers, func(i int) error {
		c := &consumer{id: consumerID(i)}
		s.consumers[i] = c
		var err error
		if c.cluster, err = lab.StartCluster(ctx, fmt.Sprintf("consumer-%03d", i), lab.Options{Dir: cfg.Dir,
			NoControllerManager: true, Etcd: s.etcd, APIServerArgs: consumerAPIServerArgs,
			APIServerEnv: consumerAPIServerEnv}); err != nil {
			return err
		}
		if c.admin, err = initCluster(ctx, c.cluster.Config, c.id); err != nil {
			return err
		}
		var env []string
		if i == 0 { // its heap profiles are kept
			env = []string{fineHeapProfile}
		}
		if c.ctl, err = startController(cfg, c.id, c.cluster.KubeconfigPath, env, consumerControllerArgs...); err != nil {
			return err
		}
		if n := started.Add(1); n%10 == 0 {
			progress("%d consumers started", n)
		}
		return nil
	}); err != nil {
		return s, err
	}
	if err := waitLeading(ctx, s.replicas...); err != nil {
		return s, err
	}
	for _, p := range s.consumerControllers() {
		if err := waitLeading(ctx, p); err != nil {
			return s, err
		}
	}
	progress("controllers ready; authenticating %d consumers, each with a ResourceSlice", cfg.Consumers)
	var done atomic.Int64
	err = parallel(ctx, 4, cfg.Consumers, func(i int) error {
		if err := s.authenticate(ctx, s.consumers[i]); err != nil {
			return fmt.Errorf("consumer %s: %w", s.consumers[i].id, err)
		}
		if n := done.Add(1); n%10 == 0 {
			progress("%d consumers authenticated", n)
		}
		return nil
	})
	return s, err
}

// authenticate runs `authenticate` and `create resourceslice` as an admin
// would, both sides served by the controller processes.
func (s *soakLab) authenticate(ctx context.Context, c *consumer) error {
	engine := flows.EngineOptions{NoInProcess: true}
	if _, err := flows.Authenticate(ctx, flows.AuthenticateOptions{Consumer: c.admin, Provider: s.providerC, Engine: engine}, nil); err != nil {
		return err
	}
	_, err := flows.CreateResourceSlice(ctx, c.admin, artifact.SliceRequest{Name: sliceName, ProviderID: providerID, CPU: "1"},
		flows.SliceOptions{Wait: true, Engine: engine}, nil)
	return err
}

func initCluster(ctx context.Context, cfg *rest.Config, id string) (*kube.Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 100, 200
	c, err := kube.NewCluster(cfg, kube.DefaultLiqoNamespace)
	if err != nil {
		return nil, err
	}
	_, err = c.Init(ctx, kube.InitOptions{ClusterID: id})
	return c, err
}

// serviceAccountKubeconfig writes a kubeconfig of the provider
// controller's ServiceAccount (TokenRequest), as its Pods would have.
func (s *soakLab) serviceAccountKubeconfig(ctx context.Context) (string, error) {
	expiry := int64(s.cfg.Duration.Seconds()) + 24*3600 // outlives the soak
	tr, err := s.providerC.Kube.CoreV1().ServiceAccounts(s.providerC.Namespace).CreateToken(ctx, "liqo-auth-controller",
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	cfg := rest.AnonymousClientConfig(s.provider.Config)
	cfg.BearerToken = tr.Status.Token
	path := filepath.Join(s.cfg.Dir, "provider-controller.kubeconfig")
	return path, lab.WriteKubeconfig(path, "provider", cfg)
}

func (s *soakLab) consumerControllers() []*controllerProcess {
	var out []*controllerProcess
	for _, c := range s.consumers {
		if c != nil && c.ctl != nil {
			out = append(out, c.ctl)
		}
	}
	return out
}

// stop stops the controllers, then the clusters.
func (s *soakLab) stop() {
	var wg sync.WaitGroup
	for _, p := range append(s.consumerControllers(), s.replicas...) {
		wg.Go(p.stop)
	}
	wg.Wait()
	for _, c := range s.consumers {
		if c != nil && c.cluster != nil {
			_ = c.cluster.Stop()
		}
	}
	if s.provider != nil {
		_ = s.provider.Stop()
	}
	if s.etcd != nil {
		_ = s.etcd.Stop()
	}
}

// parallel runs f(0..n-1) on conc goroutines and returns the first error.
func parallel(ctx context.Context, conc, n int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
