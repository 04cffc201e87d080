package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/leaderelection"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --logging-format=json

	"github.com/liqo-auth-tui/liqo-auth-tui/cmd/internal/version"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/controller"
)

const name = "liqo-auth-controller"

// helpColumns is where --help wraps flag descriptions.
const helpColumns = 100

type options struct {
	kubeconfig, context, liqoNamespace string
	leaderElect                        bool
	leaseName, identity                string
	leaseTiming                        controller.LeaseTiming
	healthAddr, metricsAddr            string
	provider, consumer                 bool
	apiServerOverride, caOverrideFile  string
	caOverride                         string // base64 of the CA PEM, like Liqo's
	trustedCA                          bool
	defaultNodeResources               resourceListValue
	sliceOffer                         controller.SliceOffer
	defaultSliceClassEnabled           bool
	workers                            int
	profiling                          bool
	memoryLimit                        string
	qps                                float64
	burst                              int
	logging                            *logsapi.LoggingConfiguration
	help, version                      bool
}

// flagGroups registers every flag on o, in the groups --help shows.
func (o *options) flagGroups() cliflag.NamedFlagSets {
	var groups cliflag.NamedFlagSets

	fs := groups.FlagSet("cluster")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for development (default: in-cluster config)")
	fs.StringVar(&o.context, "context", "", "kubeconfig context (with --kubeconfig)")
	fs.StringVar(&o.liqoNamespace, "liqo-namespace", kube.DefaultLiqoNamespace, "namespace of the cluster ID, keys and the leader Lease")
	// Like controller-runtime, no client-side limit by default: the API
	// server's priority and fairness protects it, and a 50 QPS bucket
	// would make a burst of Tenants wait for the client, not the server.
	fs.Float64Var(&o.qps, "kube-api-qps", -1, "client-side rate limit of the requests to the API server, per second (negative: none; the API server's priority and fairness applies)")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "burst of the client-side rate limit (with a positive --kube-api-qps)")

	fs = groups.FlagSet("controller")
	fs.BoolVar(&o.provider, "provider", true, "serve the provider side (nonce creator, Tenant reconciler)")
	fs.BoolVar(&o.consumer, "consumer", true, "serve the consumer side (nonce signer, Identity reconciler)")
	fs.StringVar(&o.apiServerOverride, "api-server-address-override", "", "provider API server address advertised to consumers, https:// prefixed when missing (default in a Pod: https://<first control-plane node address>:6443, like Liqo; with --kubeconfig: its server)")
	fs.StringVar(&o.caOverride, "ca-override", "", "provider CA advertised to consumers, base64 of its PEM, like Liqo's (default: the service account's ca.crt)")
	fs.StringVar(&o.caOverrideFile, "ca-override-file", "", "provider CA bundle advertised to consumers, read from a file (default: the service account's ca.crt)")
	fs.BoolVar(&o.trustedCA, "trusted-ca", false, "advertise no CA: the API server's certificate is publicly trusted (a CA override still wins)")
	o.defaultNodeResources.list = controller.DefaultNodeResources()
	fs.Var(&o.defaultNodeResources, controller.DefaultNodeResourcesFlag, "what a ResourceSlice is granted of each resource it does not ask for, as name=quantity pairs, like Liqo's (\"\": nothing; repeated, they add up)")
	// What a granted slice says the provider offers: Liqo's flags, which
	// its VirtualNode creator copies to the consumer's VirtualNode.
	fs.BoolVar(&o.sliceOffer.EnableStorage, controller.EnableStorageFlag, false, "offer the cluster's StorageClasses to ResourceSlices (status.storageClasses), like Liqo's")
	fs.StringVar(&o.sliceOffer.RealStorageClassName, controller.RealStorageClassNameFlag, "", "the StorageClass offered as the default one (default: the cluster's default StorageClass), like Liqo's")
	fs.Var(classNamesValue{&o.sliceOffer.IngressClasses}, controller.IngressClassesFlag, "ingress classes offered to ResourceSlices, like Liqo's: \"nginx;default,traefik\"")
	fs.Var(classNamesValue{&o.sliceOffer.LoadBalancerClasses}, controller.LoadBalancerClassesFlag, "load balancer classes offered to ResourceSlices, like Liqo's: \"metallb;default\"")
	fs.Var(labelsValue{&o.sliceOffer.ClusterLabels}, controller.ClusterLabelsFlag, "labels a consumer's VirtualNode gets from this provider's ResourceSlices (status.nodeLabels), like Liqo's: key=value,key=value")
	fs.BoolVar(&o.defaultSliceClassEnabled, controller.DefaultSliceClassEnabledFlag, true, "grant ResourceSlices of the default class; false: their Resources are Denied (DefaultResourceSliceClassDisabled) and only plugins' classes get resources, like Liqo's next release")
	// A Tenant's reconcile mostly waits: on its requests and on the CA
	// signing its CSR. Many of them at once keep the API server, not the
	// queue, the limit when consumers arrive together: in the 1,000-Tenant
	// benchmark, 64 workers took ~10% less time than 32 and 8 took ~25%
	// more (128 gained nothing over 64).
	fs.IntVar(&o.workers, "workers", 64, "workers per reconciler")
	fs.StringVar(&o.memoryLimit, "memory-limit", "", "the container's memory limit (e.g. 256Mi; the Deployment passes limits.memory): the Go heap is kept within 85% of it, collecting garbage more often instead of growing (default: none; GOMEMLIMIT wins)")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "run only while holding the leader Lease (needed with more than one replica)")
	fs.StringVar(&o.leaseName, "lease-name", kube.ControllerLeaseName, "name of the leader Lease; the wizard looks for it to know a controller runs")
	fs.StringVar(&o.identity, "identity", "", "leader election identity (default: $POD_NAME or the host name)")
	// kube-controller-manager's names and defaults; longer ones spare a busy
	// or far API server (fewer Lease writes) at the cost of a slower failover.
	d := controller.DefaultLeaseTiming
	fs.DurationVar(&o.leaseTiming.LeaseDuration, "leader-elect-lease-duration", d.LeaseDuration, "how long the Lease holds without renewal: a standby replica takes over that long after the leader stopped renewing")
	fs.DurationVar(&o.leaseTiming.RenewDeadline, "leader-elect-renew-deadline", d.RenewDeadline, "how long the leader keeps trying to renew before it stops leading (shorter than the lease duration)")
	fs.DurationVar(&o.leaseTiming.RetryPeriod, "leader-elect-retry-period", d.RetryPeriod, "how often the leader renews the Lease and a standby tries to take it")

	fs = groups.FlagSet("observability")
	fs.StringVar(&o.healthAddr, "health-address", ":8081", "address of /healthz and /readyz")
	fs.StringVar(&o.metricsAddr, "metrics-address", ":8080", "address of /metrics")
	fs.BoolVar(&o.profiling, "profiling", false, "serve Go's pprof profiles on the metrics address, under /debug/pprof/")

	// Structured logs, as text (klog's key=value) or JSON for log
	// pipelines: --logging-format, -v, --vmodule.
	o.logging = logsapi.NewLoggingConfiguration()
	logsapi.AddFlags(o.logging, groups.FlagSet("logging"))

	fs = groups.FlagSet("general")
	fs.BoolVarP(&o.help, "help", "h", false, "print this help and exit")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	return groups
}

// parseFlags parses args into options. done reports that --help or
// --version was served on stdout and the process should end; an error is
// a command-line mistake.
func parseFlags(args []string, stdout io.Writer) (o options, done bool, err error) {
	groups := o.flagGroups()
	all := pflag.NewFlagSet(name, pflag.ContinueOnError)
	all.SetOutput(io.Discard) // errors are returned, --help is ours
	for _, g := range groups.Order {
		all.AddFlagSet(groups.FlagSets[g])
	}
	if err := all.Parse(args); err != nil {
		return o, false, fmt.Errorf("%w%s", err, singleDashHint(all, args))
	}
	switch {
	case o.help:
		usage(stdout, groups)
		return o, true, nil
	case o.version:
		fmt.Fprintln(stdout, version.String(name))
		return o, true, nil
	case all.NArg() > 0:
		return o, false, fmt.Errorf("unexpected argument %q (it takes flags only)", all.Arg(0))
	case o.caOverride != "" && o.caOverrideFile != "":
		return o, false, fmt.Errorf("--ca-override and --ca-override-file both give the CA: keep one")
	}
	if err := validateLeaseTiming(o.leaseTiming); err != nil {
		return o, false, err
	}
	if o.apiServerOverride != "" {
		if _, err := kube.NormalizeAPIServer(o.apiServerOverride); err != nil {
			return o, false, fmt.Errorf("--api-server-address-override: %w", err)
		}
	}
	if o.caOverride != "" {
		if _, err := kube.DecodeCAOverride(o.caOverride); err != nil {
			return o, false, fmt.Errorf("--ca-override: %w", err)
		}
	}
	return o, false, nil
}

// validateLeaseTiming says, in the flags' words, what client-go's leader
// election would refuse once running.
func validateLeaseTiming(t controller.LeaseTiming) error {
	switch {
	case t.LeaseDuration <= 0 || t.RenewDeadline <= 0 || t.RetryPeriod <= 0:
		return errors.New("--leader-elect-lease-duration, --leader-elect-renew-deadline and --leader-elect-retry-period must be positive")
	case t.LeaseDuration <= t.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be longer than --leader-elect-renew-deadline (%s)", t.LeaseDuration, t.RenewDeadline)
	case float64(t.RenewDeadline) <= leaderelection.JitterFactor*float64(t.RetryPeriod):
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be longer than %.1f times --leader-elect-retry-period (%s)", t.RenewDeadline, leaderelection.JitterFactor, t.RetryPeriod)
	}
	return nil
}

func usage(w io.Writer, groups cliflag.NamedFlagSets) {
	fmt.Fprintf(w, "%s runs Liqo's authentication reconcilers (provider and consumer sides) in a\n", name)
	fmt.Fprintf(w, "cluster, under leader election, with health, readiness and Prometheus metrics endpoints.\n\n")
	fmt.Fprintf(w, "Usage:\n  %s [flags]\n", name)
	fmt.Fprintf(w, "  %s %s --api-server=URL [--ca=<base64 PEM>] [--proxy-url=URL]   dial once, report, exit (the reach check's Pods)\n", name, kube.ReachCheckMode)
	// Not cliflag.PrintSections: to align all sections alike, it puts
	// every description on its own line.
	for _, g := range groups.Order {
		groups.FlagSets[g].SortFlags = false // as registered: the common ones first
		fmt.Fprintf(w, "\n%s%s flags:\n%s", strings.ToUpper(g[:1]), g[1:], groups.FlagSets[g].FlagUsagesWrapped(helpColumns))
	}
}

// singleDashHint helps who still spells a long flag with one dash, as Go's
// flag package (used by earlier versions) allowed.
func singleDashHint(fs *pflag.FlagSet, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			continue
		}
		if n, _, _ := strings.Cut(a[1:], "="); len(n) > 1 && fs.Lookup(n) != nil {
			return fmt.Sprintf(" (long flags take two dashes: -%s)", a)
		}
	}
	return ""
}

// resourceListValue is --default-node-resources in Liqo's syntax
// (cpu=4,memory=8Gi): its first use replaces the default, later ones add
// to it.
type resourceListValue struct {
	list corev1.ResourceList
	set  bool
}

func (v *resourceListValue) String() string { return controller.FormatResourceList(v.list) }

func (v *resourceListValue) Type() string { return "list" }

func (v *resourceListValue) Set(s string) error {
	list, err := controller.ParseResourceList(s)
	if err != nil {
		return err
	}
	if !v.set {
		v.list, v.set = corev1.ResourceList{}, true
	}
	for k, q := range list {
		v.list[k] = q
	}
	return nil
}

// classNamesValue is a class list flag in Liqo's syntax; repeated, the
// lists add up.
type classNamesValue struct{ classes *[]controller.ClassName }

func (v classNamesValue) String() string {
	if v.classes == nil {
		return ""
	}
	return controller.FormatClassNames(*v.classes)
}

func (v classNamesValue) Type() string { return "classes" }

func (v classNamesValue) Set(s string) error {
	classes, err := controller.ParseClassNames(s)
	if err != nil {
		return err
	}
	*v.classes = append(*v.classes, classes...)
	return nil
}

// labelsValue is --cluster-labels in Liqo's syntax; repeated, they add up.
type labelsValue struct{ labels *map[string]string }

func (v labelsValue) String() string {
	if v.labels == nil {
		return ""
	}
	return controller.FormatLabels(*v.labels)
}

func (v labelsValue) Type() string { return "labels" }

func (v labelsValue) Set(s string) error {
	labels, err := controller.ParseLabels(s)
	if err != nil {
		return err
	}
	if *v.labels == nil {
		*v.labels = map[string]string{}
	}
	for k, l := range labels {
		(*v.labels)[k] = l
	}
	return nil
}
