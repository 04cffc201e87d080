package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

const (
	testRelease   = "liqo-auth"
	testNamespace = "liqo"
)

// kubeVersion is the lab's: Helm's SDK otherwise assumes v1.20, older than
// the chart's kubeVersion.
func kubeVersion(t testing.TB) *chartutil.KubeVersion {
	t.Helper()
	v, err := chartutil.ParseKubeVersion("v1.37.1")
	require.NoError(t, err)
	return v
}

func loadChart(t testing.TB) *chart.Chart {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	require.NoError(t, err)
	return chrt
}

// values parses a value set written as YAML.
func values(t testing.TB, text string) map[string]any {
	t.Helper()
	vals, err := chartutil.ReadValues([]byte(text))
	require.NoError(t, err)
	return vals
}

// rendered is the objects of a `helm template`, by "Kind name".
type rendered map[string]string

// template renders the chart as `helm template --include-crds` does, with
// the cluster serving the extra apiVersions.
func template(t testing.TB, vals map[string]any, apiVersions ...string) (rendered, error) {
	t.Helper()
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.ReleaseName, install.Namespace = testRelease, testNamespace
	install.DryRun, install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true, true
	install.APIVersions, install.KubeVersion = apiVersions, kubeVersion(t)
	rel, err := install.Run(loadChart(t), vals)
	if err != nil {
		return nil, err
	}
	objs := rendered{}
	for _, doc := range releaseutil.SplitManifests(rel.Manifest) {
		var u unstructured.Unstructured
		require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object), doc)
		if len(u.Object) == 0 {
			continue
		}
		key := u.GetKind() + " " + u.GetName()
		require.NotContains(t, objs, key, "rendered twice")
		objs[key] = doc
	}
	return objs, nil
}

func mustTemplate(t testing.TB, vals map[string]any, apiVersions ...string) rendered {
	t.Helper()
	objs, err := template(t, vals, apiVersions...)
	require.NoError(t, err)
	return objs
}

// decode fills obj from the rendered object key, strictly (a misspelled
// field fails).
func decode[T any](t testing.TB, objs rendered, key string) *T {
	t.Helper()
	doc, ok := objs[key]
	require.True(t, ok, "%s not rendered; got %v", key, objs.keys())
	obj := new(T)
	require.NoError(t, yaml.UnmarshalStrict([]byte(doc), obj), doc)
	return obj
}

func (r rendered) keys() []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func controllerContainer(t testing.TB, objs rendered) (*appsv1.Deployment, corev1.Container) {
	t.Helper()
	d := decode[appsv1.Deployment](t, objs, "Deployment liqo-auth-controller")
	require.Len(t, d.Spec.Template.Spec.Containers, 1)
	return d, d.Spec.Template.Spec.Containers[0]
}

func TestLint(t *testing.T) {
	for name, vals := range map[string]string{
		"defaults": "",
		"ha":       "replicaCount: 3\npodDisruptionBudget: {maxUnavailable: 1}\nnetworkPolicy: {enabled: true}\n",
	} {
		linter := lint.AllWithKubeVersionAndSchemaValidation(chartDir, values(t, vals), testNamespace, kubeVersion(t), false)
		for _, m := range linter.Messages {
			assert.LessOrEqual(t, m.Severity, support.InfoSev, "%s: %s", name, m)
		}
	}
}

// The defaults install what `install controller` does, plus a PDB.
func TestTemplateDefaults(t *testing.T) {
	objs := mustTemplate(t, nil)
	assert.Equal(t, []string{
		"ClusterRole liqo-auth-controller", "ClusterRole liqo-remote-controlplane", "ClusterRole liqo-virtual-kubelet-remote-clusterwide",
		"ClusterRoleBinding liqo-auth-controller",
		"CustomResourceDefinition identities.authentication.liqo.io", "CustomResourceDefinition namespacemaps.offloading.liqo.io",
		"CustomResourceDefinition renews.authentication.liqo.io", "CustomResourceDefinition resourceslices.authentication.liqo.io",
		"CustomResourceDefinition tenants.authentication.liqo.io",
		"Deployment liqo-auth-controller", "PodDisruptionBudget liqo-auth-controller",
		"Role liqo-auth-controller", "RoleBinding liqo-auth-controller", "ServiceAccount liqo-auth-controller",
	}, objs.keys())

	d, c := controllerContainer(t, objs)
	assert.Equal(t, int32(2), *d.Spec.Replicas)
	assert.Equal(t, testNamespace, d.Namespace)
	assert.Equal(t, "ghcr.io/liqo-auth-tui/liqo-auth-controller:"+loadChart(t).AppVersion(), c.Image, "the tag defaults to appVersion")
	assert.Equal(t, corev1.PullIfNotPresent, c.ImagePullPolicy)
	assert.Equal(t, []string{"--liqo-namespace=liqo", "--leader-elect=true", "--health-address=:8081", "--metrics-address=:8080",
		"--default-node-resources=cpu=4,ephemeral-storage=20Gi,memory=8Gi,pods=110", "--memory-limit=$(MEMORY_LIMIT)"}, c.Args)
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": "liqo-auth-controller", "app.kubernetes.io/part-of": "liqo",
		"app.kubernetes.io/instance": testRelease, "app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/version": "latest",
		"helm.sh/chart": "liqo-auth-controller-0.0.0-dev"}, d.Labels)
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": "liqo-auth-controller"}, d.Spec.Selector.MatchLabels)
	assert.Equal(t, "256Mi", c.Resources.Limits.Memory().String())
	require.NotNil(t, d.Spec.Template.Spec.Affinity.PodAntiAffinity, "replicas on different nodes when possible")

	pdb := decode[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget liqo-auth-controller")
	assert.Equal(t, "1", pdb.Spec.MinAvailable.String())
	assert.Nil(t, pdb.Spec.MaxUnavailable)
	assert.Equal(t, d.Spec.Selector, pdb.Spec.Selector)
}

func TestTemplateHAWithPDB(t *testing.T) {
	objs := mustTemplate(t, values(t, `
replicaCount: 3
podDisruptionBudget: {maxUnavailable: 1}
image: {repository: registry.example/liqo-auth-controller, tag: v9.9.9, pullPolicy: Always}
imagePullSecrets: [{name: pull}]
resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: "1", memory: 1Gi}}
nodeSelector: {node-role.kubernetes.io/control-plane: ""}
tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
affinity: {podAntiAffinity: null, nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [arm64]}]}]}}}
topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app.kubernetes.io/name: liqo-auth-controller}}}]
priorityClassName: system-cluster-critical
podAnnotations: {example.com/a: b}
`))
	d, c := controllerContainer(t, objs)
	spec := d.Spec.Template.Spec
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, "registry.example/liqo-auth-controller:v9.9.9", c.Image)
	assert.Equal(t, corev1.PullAlways, c.ImagePullPolicy)
	assert.Equal(t, []corev1.LocalObjectReference{{Name: "pull"}}, spec.ImagePullSecrets)
	assert.Equal(t, "1Gi", c.Resources.Limits.Memory().String())
	assert.Equal(t, "1", c.Resources.Limits.Cpu().String())
	assert.Contains(t, c.Args, "--memory-limit=$(MEMORY_LIMIT)")
	assert.Equal(t, map[string]string{"node-role.kubernetes.io/control-plane": ""}, spec.NodeSelector)
	require.Len(t, spec.Tolerations, 1)
	assert.Equal(t, corev1.TaintEffectNoSchedule, spec.Tolerations[0].Effect)
	assert.Nil(t, spec.Affinity.PodAntiAffinity, "null drops the default")
	require.NotNil(t, spec.Affinity.NodeAffinity)
	require.Len(t, spec.TopologySpreadConstraints, 1)
	assert.Equal(t, "system-cluster-critical", spec.PriorityClassName)
	assert.Equal(t, "b", d.Spec.Template.Annotations["example.com/a"])

	pdb := decode[policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget liqo-auth-controller")
	assert.Equal(t, "1", pdb.Spec.MaxUnavailable.String())
	assert.Nil(t, pdb.Spec.MinAvailable)

	// One replica: no PDB (it would block node drains), no memory limit: no --memory-limit.
	objs = mustTemplate(t, values(t, "replicaCount: 1\nresources: {limits: null}\n"))
	assert.NotContains(t, objs, "PodDisruptionBudget liqo-auth-controller")
	_, c = controllerContainer(t, objs)
	assert.NotContains(t, strings.Join(c.Args, " "), "--memory-limit")
	for _, e := range c.Env {
		assert.NotEqual(t, "MEMORY_LIMIT", e.Name)
	}

	_, err := template(t, values(t, "leaderElection: {enabled: false}\n"))
	assert.ErrorContains(t, err, "replicaCount > 1 needs leaderElection.enabled")
}

func TestTemplateServiceMonitorAndNetworkPolicy(t *testing.T) {
	on := values(t, `
metrics: {serviceMonitor: {enabled: true, labels: {release: prometheus}, interval: 30s}}
networkPolicy: {enabled: true, metricsFrom: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}], apiServer: {cidrs: [10.0.0.1/32]}}
`)
	_, err := template(t, on)
	assert.ErrorContains(t, err, "needs the monitoring.coreos.com/v1 ServiceMonitor CRD")

	objs := mustTemplate(t, on, "monitoring.coreos.com/v1/ServiceMonitor")
	svc := decode[corev1.Service](t, objs, "Service liqo-auth-controller-metrics")
	require.Len(t, svc.Spec.Ports, 1)
	assert.Equal(t, "metrics", svc.Spec.Ports[0].Name)
	assert.Equal(t, "metrics", svc.Spec.Ports[0].TargetPort.String())

	var sm struct {
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Selector          struct{ MatchLabels map[string]string } `json:"selector"`
			NamespaceSelector struct{ MatchNames []string }           `json:"namespaceSelector"`
			Endpoints         []struct{ Port, Path, Interval string } `json:"endpoints"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(objs["ServiceMonitor liqo-auth-controller"]), &sm))
	assert.Equal(t, "monitoring.coreos.com/v1", sm.APIVersion)
	assert.Equal(t, "prometheus", sm.Metadata.Labels["release"])
	for k, v := range sm.Spec.Selector.MatchLabels {
		assert.Equal(t, v, svc.Labels[k], "the ServiceMonitor selects the metrics Service")
	}
	assert.Equal(t, []string{testNamespace}, sm.Spec.NamespaceSelector.MatchNames)
	require.Len(t, sm.Spec.Endpoints, 1)
	assert.Equal(t, "metrics", sm.Spec.Endpoints[0].Port)
	assert.Equal(t, "/metrics", sm.Spec.Endpoints[0].Path)
	assert.Equal(t, "30s", sm.Spec.Endpoints[0].Interval)

	np := decode[networkingv1.NetworkPolicy](t, objs, "NetworkPolicy liqo-auth-controller")
	assert.ElementsMatch(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
	d, _ := controllerContainer(t, objs)
	assert.Equal(t, d.Spec.Selector.MatchLabels, np.Spec.PodSelector.MatchLabels)
	require.Len(t, np.Spec.Ingress, 2)
	assert.Equal(t, "health", np.Spec.Ingress[0].Ports[0].Port.String())
	assert.Empty(t, np.Spec.Ingress[0].From, "probes come from the node")
	assert.Equal(t, "metrics", np.Spec.Ingress[1].Ports[0].Port.String())
	require.Len(t, np.Spec.Ingress[1].From, 1)
	require.Len(t, np.Spec.Egress, 2)
	assert.Equal(t, "53", np.Spec.Egress[0].Ports[0].Port.String())
	assert.Equal(t, []string{"443", "6443"}, []string{np.Spec.Egress[1].Ports[0].Port.String(), np.Spec.Egress[1].Ports[1].Port.String()})
	assert.Equal(t, "10.0.0.1/32", np.Spec.Egress[1].To[0].IPBlock.CIDR)

	// Off by default.
	objs = mustTemplate(t, nil, "monitoring.coreos.com/v1/ServiceMonitor")
	for _, key := range []string{"ServiceMonitor liqo-auth-controller", "NetworkPolicy liqo-auth-controller", "Service liqo-auth-controller-metrics"} {
		assert.NotContains(t, objs, key)
	}
}

// allFlags sets every value that becomes a controller flag.
const allFlags = `
leaderElection: {enabled: true, leaseName: my-lease, leaseDuration: 60s, renewDeadline: 40s, retryPeriod: 10s}
provider: false
consumer: false
advertise: {apiServerAddress: "https://api.example.com:6443", ca: %q, trustedCA: true}
defaultNodeResources: {cpu: "8", memory: 16Gi, pods: null, nvidia.com/gpu: "1"}
defaultResourceSliceClassEnabled: false
sliceOffer: {storage: {enabled: true, realStorageClassName: fast}, ingressClasses: [{name: nginx, default: true}, {name: traefik}],
  loadBalancerClasses: [{name: metallb, default: true}], clusterLabels: {tier: gold, topology.kubernetes.io/zone: eu-1}}
workers: 16
kubeAPI: {qps: 50, burst: 200}
logging: {format: json, verbosity: 4, vmodule: "tenant*=5"}
health: {port: 9081}
metrics: {port: 9080, profiling: true}
extraArgs: ["--log-flush-frequency=10s"]
`

// notValues are the controller flags the chart sets otherwise, and why.
var notValues = map[string]string{
	"kubeconfig": "development only: in a Pod, the in-cluster config",
	"context":    "development only, with --kubeconfig",
	"identity":   "the Pod's name ($POD_NAME)",
	"help":       "not for a Deployment",
	"version":    "not for a Deployment",
}

// Every flag of the controller (its --help) is a value of the chart, and
// the controller parses what the chart renders.
func TestTemplateEveryControllerFlag(t *testing.T) {
	t.Parallel() // building the controller overlaps the lab's test
	binary := filepath.Join(t.TempDir(), "liqo-auth-controller")
	// Built as hack/image and hack/release build it (make test runs them
	// first): on a cold machine the compiled packages are theirs.
	build := exec.Command("go", "build", "-trimpath", "-o", binary, ".")
	build.Dir = "../../cmd/liqo-auth-controller"
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building the controller: %s", out)

	ca := base64PEM(t)
	all := mustTemplate(t, values(t, fmt.Sprintf(allFlags, ca)))
	_, c := controllerContainer(t, all)
	// --enable-storage lists StorageClasses; without it, no such right.
	assert.Contains(t, all["ClusterRole liqo-auth-controller"], `resources: ["storageclasses"]`)
	assert.NotContains(t, mustTemplate(t, nil)["ClusterRole liqo-auth-controller"], "storageclasses")
	assert.Equal(t, []string{"--liqo-namespace=liqo", "--leader-elect=true", "--lease-name=my-lease",
		"--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=40s", "--leader-elect-retry-period=10s", "--provider=false", "--consumer=false",
		"--api-server-address-override=https://api.example.com:6443", "--ca-override=" + ca, "--trusted-ca",
		"--health-address=:9081", "--metrics-address=:9080", "--profiling",
		"--default-node-resources=cpu=8,ephemeral-storage=20Gi,memory=16Gi,nvidia.com/gpu=1",
		"--default-resource-slice-class-enabled=false", "--enable-storage", "--real-storage-class-name=fast", "--ingress-classes=nginx;default,traefik", "--load-balancer-classes=metallb;default",
		"--cluster-labels=tier=gold,topology.kubernetes.io/zone=eu-1", "--workers=16", "--kube-api-qps=50", "--kube-api-burst=200",
		"--logging-format=json", "--v=4", "--vmodule=tenant*=5", "--memory-limit=$(MEMORY_LIMIT)", "--log-flush-frequency=10s"}, c.Args)
	assert.Equal(t, map[string]int32{"metrics": 9080, "health": 9081}, map[string]int32{c.Ports[0].Name: c.Ports[0].ContainerPort, c.Ports[1].Name: c.Ports[1].ContainerPort})

	// The CA from a ConfigMap instead: --ca-override-file on its mount.
	objs := mustTemplate(t, values(t, "advertise: {caConfigMap: {name: advertised-ca}}\n"))
	d, cm := controllerContainer(t, objs)
	assert.Contains(t, cm.Args, "--ca-override-file=/etc/liqo-auth/advertised-ca/ca.crt")
	require.Len(t, cm.VolumeMounts, 1)
	assert.Equal(t, "/etc/liqo-auth/advertised-ca", cm.VolumeMounts[0].MountPath)
	require.Len(t, d.Spec.Template.Spec.Volumes, 1)
	assert.Equal(t, "advertised-ca", d.Spec.Template.Spec.Volumes[0].ConfigMap.Name)
	_, err = template(t, values(t, fmt.Sprintf("advertise: {ca: %q, caConfigMap: {name: x}}\n", ca)))
	assert.ErrorContains(t, err, "advertise.ca and advertise.caConfigMap.name both give the advertised CA")

	// Every flag of --help is rendered by a value (or extraArgs), or said why not.
	help, err := exec.Command(binary, "--help").Output()
	require.NoError(t, err)
	args := append(slices.Clone(c.Args), cm.Args...)
	flags := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)`).FindAllStringSubmatch(string(help), -1)
	require.Greater(t, len(flags), 20, "the flags of:\n%s", help)
	for _, m := range flags {
		flag := m[1]
		if _, ok := notValues[flag]; ok {
			continue
		}
		if slices.ContainsFunc([]string{"log-flush-frequency", "log-json-info-buffer-size", "log-json-split-stream", "log-text-info-buffer-size", "log-text-split-stream"}, func(f string) bool { return f == flag }) {
			continue // component-base's logging tuning: extraArgs
		}
		assert.True(t, slices.ContainsFunc(args, func(a string) bool { return a == "--"+flag || strings.HasPrefix(a, "--"+flag+"=") }),
			"controller flag --%s has no chart value", flag)
	}

	// The controller parses every rendered flag (--help stops it after parsing).
	for _, args := range [][]string{c.Args, cm.Args} {
		args = slices.Clone(args)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "$(MEMORY_LIMIT)", "268435456") // the kubelet expands it
		}
		cmd := exec.Command(binary, append(args, "--help")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		assert.NoError(t, cmd.Run(), "%v: %s", args, stderr.String())
	}
}

// The plain manifests that `install controller` and `kubectl apply -k`
// apply are the chart's rendering: hack/generate.sh wrote them and nobody
// edited them since.
func TestPlainManifestsAreTheChartsRendering(t *testing.T) {
	plain, err := renderPlain(loadChart(t))
	require.NoError(t, err)
	onDisk, err := filepath.Glob(filepath.Join(chartDir, plainDir, "*"))
	require.NoError(t, err)
	var names []string
	for _, f := range onDisk {
		names = append(names, filepath.Base(f))
	}
	assert.Equal(t, sortedKeys(plain), names, "assets/deploy/controller holds exactly what templates/controller renders: run hack/generate.sh")
	kustomization, err := os.ReadFile(filepath.Join(chartDir, "kustomization.yaml"))
	require.NoError(t, err)
	for _, name := range sortedKeys(plain) {
		got, err := os.ReadFile(filepath.Join(chartDir, plainDir, name))
		require.NoError(t, err)
		assert.Equal(t, string(plain[name]), string(got), "assets/deploy/controller/%s is not the chart's rendering: edit templates/controller/%s and run hack/generate.sh", name, name)
		assert.Contains(t, string(kustomization), "\n- "+plainDir+"/"+name+"\n", "kustomization.yaml lists %s", name)
	}

	// What install controller relocates and replaces.
	assert.Equal(t, kube.DefaultLiqoNamespace, plainNamespace)
	objs := rendered{"Deployment liqo-auth-controller": string(plain["deployment.yaml"])}
	_, c := controllerContainer(t, objs)
	assert.Equal(t, kube.ControllerImage, c.Image)
	assert.Contains(t, c.Args, "--liqo-namespace="+kube.DefaultLiqoNamespace)
	assert.NotContains(t, string(plain["deployment.yaml"]), "helm.sh/chart")
}

// base64PEM is an admin's --ca-override: base64 of a CA's PEM.
func base64PEM(t testing.TB) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "advertised-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// make chart: the archive carries the release version, its image tag
// defaults to it, and it holds the chart, not the kustomization.
func TestPackage(t *testing.T) {
	_, err := packageChart(chartDir, "1.2/3", t.TempDir())
	assert.ErrorContains(t, err, "a chart needs a SemVer version")
	file, err := packageChart(chartDir, "21d32d0-dirty", t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, "liqo-auth-controller-0.0.0-21d32d0-dirty.tgz", filepath.Base(file), "an untagged build: a pre-release")

	file, err = packageChart(chartDir, "v1.2.3", t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, "liqo-auth-controller-1.2.3.tgz", filepath.Base(file))
	chrt, err := loader.Load(file)
	require.NoError(t, err)
	assert.Equal(t, "1.2.3", chrt.Metadata.Version)
	assert.Equal(t, "v1.2.3", chrt.AppVersion())
	for _, f := range chrt.Files {
		assert.True(t, strings.HasPrefix(f.Name, "crds/") || strings.HasPrefix(f.Name, "rbac/") || f.Name == ".helmignore", "%s in the archive", f.Name)
	}
	assert.Len(t, chrt.CRDObjects(), 5)
	vals, err := chartutil.ToRenderValues(chrt, nil, chartutil.ReleaseOptions{Name: testRelease, Namespace: testNamespace}, nil)
	require.NoError(t, err)
	out, err := engine.Render(chrt, vals)
	require.NoError(t, err)
	assert.Contains(t, out["liqo-auth-controller/templates/controller/deployment.yaml"], "image: ghcr.io/liqo-auth-tui/liqo-auth-controller:v1.2.3\n")
}

// values.schema.json refuses a misspelled key or a wrong type before
// anything renders, saying which.
func TestValuesSchemaRefusesMistakes(t *testing.T) {
	for vals, want := range map[string]string{
		"replicas: 3\n":                                      "replicas",
		"replicaCount: two\n":                                "replicaCount",
		"image: {pullPolicy: Sometimes}\n":                   "pullPolicy",
		"logging: {format: xml}\n":                           "format",
		"networkPolicy: {enable: true}\n":                    "enable",
		"metrics: {serviceMonitor: {enabled: \"on\"}}\n":     "enabled",
		"leaderElection: {leaseDuration: 15}\n":              "leaseDuration",
		"leaderElection: {retryPeriod: 2 seconds}\n":         "retryPeriod",
		"sliceOffer: {ingressClasses: [nginx]}\n":            "ingressClasses",
		"sliceOffer: {loadBalancerClasses: [{name: a;b}]}\n": "name",
	} {
		_, err := template(t, values(t, vals))
		assert.ErrorContains(t, err, want, vals)
	}
	objs := mustTemplate(t, values(t, "liqoClusterRoles: {create: false}\nglobal: {imageRegistry: x}\n"))
	assert.NotContains(t, objs, "ClusterRole liqo-remote-controlplane", "where Liqo's chart owns them")
	assert.NotContains(t, objs, "ClusterRole liqo-virtual-kubelet-remote-clusterwide")
	assert.Contains(t, objs, "ClusterRole liqo-auth-controller")
}
