package controller

// The fixture of the fake-clientset tests (*_fake_test.go), in
// kubernetes/sample-controller's style: the reconcilers run one sync at a
// time against client-go's fake clientset, with the informers' caches
// filled by hand, so that the tests reach the branches a real API server
// hardly produces (a conflict at the right moment, an API error, a CSR
// denied or failed by its signer) and check what the sync returned, wrote,
// requeued and reported. They need no cluster.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	certv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	authv1beta1 "github.com/liqo-auth-tui/liqo-auth-tui/kube/apis/authentication/v1beta1"
)

// fakeLiqo serves kube.LiqoClient (a REST client on client-go's generic
// typed client: there is no generated clientset, hence no generated fake)
// from a client-go testing.Fake, as its http.RoundTripper: each request
// becomes the action a fake clientset would record and goes through the
// same reactor chain and object tracker. Tests inject failures with
// PrependReactor on "tenants" and "identities" and read Actions().
type fakeLiqo struct {
	k8stesting.Fake
	tracker k8stesting.ObjectTracker
	codecs  serializer.CodecFactory
}

func newFakeLiqo(objects ...runtime.Object) *fakeLiqo {
	codecs := serializer.NewCodecFactory(kube.Scheme)
	f := &fakeLiqo{tracker: k8stesting.NewObjectTracker(kube.Scheme, codecs.UniversalDecoder()), codecs: codecs}
	for _, o := range objects {
		if err := f.tracker.Add(o); err != nil {
			panic(err)
		}
	}
	f.AddReactor("*", "*", k8stesting.ObjectReaction(f.tracker))
	return f
}

// client is a kube.LiqoClient whose requests this fake answers.
func (f *fakeLiqo) client(t testing.TB) *kube.LiqoClient {
	t.Helper()
	c, err := kube.NewLiqoClient(&rest.Config{Host: "https://liqo.fake", Transport: f, QPS: -1})
	require.NoError(t, err)
	return c
}

// RoundTrip turns /apis/authentication.liqo.io/v1beta1[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]
// into an action of the fake.
func (f *fakeLiqo) RoundTrip(req *http.Request) (*http.Response, error) {
	prefix := "/apis/" + authv1beta1.GroupVersion.String() + "/"
	if !strings.HasPrefix(req.URL.Path, prefix) {
		return f.respond(req, nil, apierrors.NewNotFound(schema.GroupResource{}, req.URL.Path), 0)
	}
	parts := strings.Split(strings.TrimPrefix(req.URL.Path, prefix), "/")
	ns := ""
	if len(parts) >= 3 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	resource, name, sub := parts[0], "", ""
	if len(parts) > 1 {
		name = parts[1]
	}
	if len(parts) > 2 {
		sub = parts[2]
	}
	gvr := authv1beta1.GroupVersion.WithResource(resource)
	var action k8stesting.Action
	code := http.StatusOK
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true":
			return f.respond(req, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), "watch"), 0)
		case name == "":
			kind, err := f.kindOf(gvr)
			if err != nil {
				return nil, err
			}
			action = k8stesting.NewListAction(gvr, kind, ns, metav1.ListOptions{LabelSelector: req.URL.Query().Get("labelSelector")})
		default:
			action = k8stesting.NewGetSubresourceAction(gvr, ns, sub, name)
		}
	case http.MethodPost, http.MethodPut:
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		obj, err := runtime.Decode(f.codecs.UniversalDeserializer(), body)
		if err != nil {
			return f.respond(req, nil, apierrors.NewBadRequest(err.Error()), 0)
		}
		if req.Method == http.MethodPost {
			action, code = k8stesting.NewCreateAction(gvr, ns, obj), http.StatusCreated
		} else {
			action = k8stesting.NewUpdateSubresourceAction(gvr, sub, ns, obj)
		}
	case http.MethodDelete:
		action = k8stesting.NewDeleteAction(gvr, ns, name)
	default:
		return f.respond(req, nil, apierrors.NewMethodNotSupported(gvr.GroupResource(), req.Method), 0)
	}
	obj, err := f.Invokes(action, nil)
	if err == nil {
		if list, ok := action.(k8stesting.ListActionImpl); ok {
			err = filterList(obj, list.ListOptions.LabelSelector)
		}
	}
	return f.respond(req, obj, err, code)
}

func (f *fakeLiqo) kindOf(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	kind, ok := map[string]string{authv1beta1.TenantResource: authv1beta1.TenantKind, authv1beta1.IdentityResource: authv1beta1.IdentityKind}[gvr.Resource]
	if !ok {
		return schema.GroupVersionKind{}, fmt.Errorf("fakeLiqo: no kind for %s", gvr)
	}
	return gvr.GroupVersion().WithKind(kind), nil
}

// filterList keeps the items of a list matching selector, like the
// generated fake clients do.
func filterList(list runtime.Object, selector string) error {
	sel, err := labels.Parse(selector)
	if err != nil || sel.Empty() {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	var kept []runtime.Object
	for _, item := range items {
		if o, err := meta.Accessor(item); err == nil && sel.Matches(labels.Set(o.GetLabels())) {
			kept = append(kept, item)
		}
	}
	return meta.SetList(list, kept)
}

func (f *fakeLiqo) respond(req *http.Request, obj runtime.Object, err error, code int) (*http.Response, error) {
	var body []byte
	switch {
	case err != nil:
		var apiStatus apierrors.APIStatus
		if !errors.As(err, &apiStatus) {
			apiStatus = apierrors.NewInternalError(err)
		}
		status := apiStatus.Status()
		status.APIVersion, status.Kind = "v1", "Status"
		if code = int(status.Code); code == 0 {
			code = http.StatusInternalServerError
		}
		body, _ = json.Marshal(status)
	case obj == nil: // a delete
		body, _ = json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusSuccess})
	default:
		if body, err = runtime.Encode(f.codecs.LegacyCodec(authv1beta1.GroupVersion), obj); err != nil {
			return nil, err
		}
	}
	return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {runtime.ContentTypeJSON}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
}

// fixture is one cluster made of fakes: the API (kube and Liqo) and what
// the informers of a Manager would have in their caches.
type fixture struct {
	t        *testing.T
	kube     *k8sfake.Clientset
	liqo     *fakeLiqo
	dyn      *dynamicfake.FakeDynamicClient
	cluster  *kube.Cluster
	recorder *record.FakeRecorder

	// The informers' caches, filled by the test (nothing watches).
	tenants, identities, namespaces, secrets cache.Indexer
}

func newFixture(t *testing.T) *fixture {
	// The fake clientset's watch does not stream the initial list (watch-list),
	// which kube.WaitFor's reflector would otherwise expect.
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	f := &fixture{
		t:          t,
		kube:       k8sfake.NewClientset(),
		liqo:       newFakeLiqo(),
		recorder:   record.NewFakeRecorder(100),
		tenants:    cache.NewIndexer(cache.MetaNamespaceKeyFunc, tenantIndexers),
		identities: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		namespaces: cache.NewIndexer(cache.MetaNamespaceKeyFunc, byRemoteIDIndexers),
		secrets:    cache.NewIndexer(cache.MetaNamespaceKeyFunc, byRemoteIDIndexers),
	}
	f.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		authv1beta1.ResourceSliceGroupVersionResource: "ResourceSliceList",
		namespaceMapsResource:                         "NamespaceMapList",
	})
	f.cluster = &kube.Cluster{
		Config: &rest.Config{Host: "https://provider.example:6443", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("provider CA")}},
		Kube:   f.kube, Liqo: f.liqo.client(t), Server: "https://provider.example:6443", Namespace: kube.DefaultLiqoNamespace,
	}
	// The API server names the objects created with generateName (CSRs).
	var generated int
	f.kube.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if o, err := meta.Accessor(a.(k8stesting.CreateAction).GetObject()); err == nil && o.GetName() == "" && o.GetGenerateName() != "" {
			generated++
			o.SetName(fmt.Sprintf("%s%05d", o.GetGenerateName(), generated))
			o.SetUID(types.UID(fmt.Sprintf("uid-%s%05d", o.GetGenerateName(), generated)))
		}
		return false, nil, nil
	})
	return f
}

// add puts objects in the API and in the informers' caches, as if they had
// been there when the informers started.
func (f *fixture) add(objects ...runtime.Object) {
	f.t.Helper()
	for _, obj := range objects {
		var idx cache.Indexer
		switch obj.(type) {
		case *authv1beta1.Tenant:
			idx = f.tenants
		case *authv1beta1.Identity:
			idx = f.identities
		case *corev1.Namespace:
			idx = f.namespaces
		case *corev1.Secret:
			idx = f.secrets
		}
		if _, liqo := obj.(*authv1beta1.Tenant); liqo {
			require.NoError(f.t, f.liqo.tracker.Add(obj))
		} else if _, liqo := obj.(*authv1beta1.Identity); liqo {
			require.NoError(f.t, f.liqo.tracker.Add(obj))
		} else {
			require.NoError(f.t, f.kube.Tracker().Add(obj))
		}
		if idx != nil {
			require.NoError(f.t, idx.Add(obj))
		}
	}
}

func (f *fixture) events() *events { return &events{recorder: f.recorder} }

func (f *fixture) tenantNamespaces() tenantNamespaces {
	return tenantNamespaces{c: f.cluster, lister: corelisters.NewNamespaceLister(f.namespaces), index: f.namespaces}
}

// recorded returns the Events recorded so far ("Type Reason message").
func (f *fixture) recorded() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// reasons returns the "Type Reason" of the Events recorded so far.
func (f *fixture) reasons() []string { return reasonsOf(f.recorded()) }

// writes lists the writes (create, update, patch, delete) the sync asked
// of the fake as "verb resource[/subresource] [namespace/]name" (a name to
// be generated is its prefix and *).
func writes(actions []k8stesting.Action) []string {
	var out []string
	for _, a := range actions {
		verb := a.GetVerb()
		if verb == "get" || verb == "list" || verb == "watch" {
			continue
		}
		res := a.GetResource().Resource
		if sub := a.GetSubresource(); sub != "" {
			res += "/" + sub
		}
		name := ""
		switch a := a.(type) {
		case k8stesting.CreateAction:
			if o, err := meta.Accessor(a.GetObject()); err == nil {
				if name = o.GetName(); name == "" {
					name = o.GetGenerateName() + "*"
				}
			}
		case k8stesting.UpdateAction:
			if o, err := meta.Accessor(a.GetObject()); err == nil {
				name = o.GetName()
			}
		case k8stesting.DeleteAction:
			name = a.GetName()
		}
		if ns := a.GetNamespace(); ns != "" {
			name = ns + "/" + name
		}
		out = append(out, verb+" "+res+" "+name)
	}
	return out
}

// failing returns a reactor that answers err to the first n matching
// actions (n < 0: all of them) and lets the others through.
func failing(n int, err error, match func(k8stesting.Action) bool) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		if n == 0 || (match != nil && !match(a)) {
			return false, nil, nil
		}
		n--
		return true, nil, err
	}
}

func subresource(sub string) func(k8stesting.Action) bool {
	return func(a k8stesting.Action) bool { return a.GetSubresource() == sub }
}

func named(name string) func(k8stesting.Action) bool {
	return func(a k8stesting.Action) bool {
		switch a := a.(type) {
		case k8stesting.GetAction:
			return a.GetName() == name
		case k8stesting.DeleteAction:
			return a.GetName() == name
		case k8stesting.CreateAction:
			o, err := meta.Accessor(a.GetObject())
			return err == nil && o.GetName() == name
		case k8stesting.UpdateAction:
			o, err := meta.Accessor(a.GetObject())
			return err == nil && o.GetName() == name
		}
		return false
	}
}

var (
	conflictErr = apierrors.NewConflict(authv1beta1.Resource(authv1beta1.TenantResource), "x",
		errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	internalErr = apierrors.NewInternalError(errors.New("etcdserver: request timed out"))
)

// runLoop works one key off a loop like a worker does, and returns the
// error of its sync.
func runLoop(t *testing.T, l *loop, key string) error {
	t.Helper()
	var got error
	l.afterSync = func(_, k string, err error) {
		if k == key {
			got = err
		}
	}
	done := make(chan bool, 1)
	go func() { done <- l.next(context.Background()) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("no sync of %s", key)
	}
	return got
}

// provider is a provider cluster, made of fakes, set up for the Tenant of
// one consumer: the ClusterRoles to bind, the consumer's tenant namespace
// and nonce, and the Tenant signed over it (with our finalizer).
type provider struct {
	*fixture
	consumer *consumer
	tenant   *authv1beta1.Tenant
	ns       string
	// sign is what the cluster's signer does with an approved CSR.
	sign func(*certv1.CertificateSigningRequest)
}

func newProvider(t *testing.T, consumerID string) *provider {
	f := newFixture(t)
	p := &provider{fixture: f, consumer: newConsumer(t, consumerID), ns: kube.TenantNamespaceName(consumerID)}
	for _, role := range []struct{ name, selector string }{
		{kube.RemoteControlPlaneClusterRole, kube.RemoteControlPlaneRoleSelector},
		{kube.RemoteClusterWideClusterRole, kube.RemoteClusterWideRoleSelector},
	} {
		set, err := labels.ConvertSelectorToLabelsMap(role.selector)
		require.NoError(t, err)
		f.add(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.name, Labels: set}})
	}
	f.add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: p.ns, Labels: kube.TenantNamespaceLabels(consumerID)}})
	nonce, err := authcrypto.NewNonce()
	require.NoError(t, err)
	p.consumer.nonce = nonce
	f.add(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kube.NonceSecretName, Namespace: p.ns,
			Labels: map[string]string{kube.RemoteClusterIDLabel: consumerID, kube.NonceLabel: "true"}},
		Data: map[string][]byte{kube.NonceField: []byte(nonce)},
	})
	p.tenant = p.consumer.tenant(t, p.ns, nonce)
	p.tenant.UID = types.UID("uid-tenant-" + consumerID)
	p.tenant.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Minute))
	p.tenant.Finalizers = []string{kube.TenantFinalizer}

	// The signer: a certificate valid for a day, unless the test says otherwise.
	p.sign = func(csr *certv1.CertificateSigningRequest) {
		csr.Status.Certificate = labtest.SelfSigned(t, p.consumer.key, consumerID, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
	}
	f.kube.PrependReactor("update", "certificatesigningrequests", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "approval" {
			p.sign(a.(k8stesting.UpdateAction).GetObject().(*certv1.CertificateSigningRequest))
		}
		return false, nil, nil // the tracker stores it, signed
	})
	return p
}

// reconciler is the Tenant reconciler of a Manager whose caches are the
// fixture's, every other lookup live (no tenantCaches).
func (p *provider) reconciler() *tenantReconciler {
	o := Options{CertificateTimeout: 5 * time.Second}.withDefaults()
	return &tenantReconciler{
		c: p.cluster, o: o, adv: newAdvertiser(p.cluster, o), events: p.events(), dyn: p.dyn,
		tenants: p.tenants, namespaces: p.tenantNamespaces(), nonces: p.secrets,
	}
}

func (p *provider) key() string { return p.ns + "/" + p.tenant.Name }

// stored returns the Tenant as the API server has it.
func (p *provider) stored() *authv1beta1.Tenant {
	p.t.Helper()
	obj, err := p.liqo.tracker.Get(authv1beta1.TenantGroupVersionResource, p.ns, p.tenant.Name)
	require.NoError(p.t, err)
	return obj.(*authv1beta1.Tenant)
}

// csrCreates counts the CertificateSigningRequests created.
func (p *provider) csrCreates() int {
	n := 0
	for _, w := range writes(p.kube.Actions()) {
		if strings.HasPrefix(w, "create certificatesigningrequests ") {
			n++
		}
	}
	return n
}
