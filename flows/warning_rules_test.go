//go:build cluster

package flows_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/labtest"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// warningWait is a wait on a real ConfigMap: the test adds Events to it
// and then fills it.
type warningWait struct {
	t       *testing.T
	c       *kube.Cluster
	ns, cm  string
	waiting chan struct{} // closed once the wait watches
	seen    chan handshake.Event
	done    chan error
}

func startWarningWait(t *testing.T, ctx context.Context, name string) *warningWait {
	c, err := kube.NewCluster(clusters(t)[0].Config, "")
	require.NoError(t, err)
	w := &warningWait{t: t, c: c, ns: "default", cm: name, waiting: make(chan struct{}),
		seen: make(chan handshake.Event, 10), done: make(chan error, 1)}
	_, err = c.Kube.CoreV1().ConfigMaps(w.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c.Kube.CoreV1().ConfigMaps(w.ns).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	var once sync.Once
	go func() {
		_, err := flows.WaitForConfigMap(ctx, c, func(ev handshake.Event) { w.seen <- ev }, w.ns, name, func(cm *corev1.ConfigMap) (bool, error) {
			// The Events are listed before the object: from the first look
			// at it on, a new Event reaches the wait.
			once.Do(func() { close(w.waiting) })
			return cm.Data["ready"] == "true", nil
		})
		w.done <- err
	}()
	<-w.waiting
	return w
}

func (w *warningWait) warn(ctx context.Context, reason string) handshake.Event {
	w.t.Helper()
	cm, err := w.c.Kube.CoreV1().ConfigMaps(w.ns).Get(ctx, w.cm, metav1.GetOptions{})
	require.NoError(w.t, err)
	_, err = w.c.Kube.CoreV1().Events(w.ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: w.cm + "-"},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: w.ns, Name: w.cm, UID: cm.UID, APIVersion: "v1"},
		Reason:         reason, Message: "the test says " + reason, Type: corev1.EventTypeWarning,
		Source: corev1.EventSource{Component: "flows-test"}, FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1,
	}, metav1.CreateOptions{})
	require.NoError(w.t, err)
	select {
	case ev := <-w.seen:
		return ev
	case <-ctx.Done():
		w.t.Fatalf("the Warning %s never reached the sink", reason)
	}
	return handshake.Event{}
}

// A transient Warning is progress: the wait shows it and goes on until the
// condition holds.
func TestTransientWarningDoesNotFailTheWait(t *testing.T) {
	ctx := labtest.Context(t)
	w := startWarningWait(t, ctx, "transient-warning")
	ev := w.warn(ctx, "UpdateFailed")
	assert.Equal(t, handshake.ClusterEvent, ev.Kind)
	assert.True(t, ev.Warning)
	assert.Equal(t, "UpdateFailed", ev.Reason)
	select {
	case err := <-w.done:
		t.Fatalf("the wait ended on a transient Warning: %v", err)
	default:
	}
	_, err := w.c.Kube.CoreV1().ConfigMaps(w.ns).Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.cm, Namespace: w.ns},
		Data: map[string]string{"ready": "true"}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, <-w.done)
}

// A final Warning ends the wait at once with its reason.
func TestFinalWarningFailsTheWait(t *testing.T) {
	ctx := labtest.Context(t)
	w := startWarningWait(t, ctx, "final-warning")
	w.warn(ctx, "InvalidCSR")
	var warn *flows.WarningError
	err := <-w.done
	require.True(t, errors.As(err, &warn), "got %v", err)
	assert.Equal(t, "InvalidCSR", warn.Reason)
	assert.Contains(t, err.Error(), "generate the Tenant again")
}

// A wait that runs out of time after transient Warnings names the last one.
func TestTimeoutNamesTheLastTransientWarning(t *testing.T) {
	ctx, cancel := context.WithTimeout(labtest.Context(t), 20*time.Second)
	defer cancel()
	w := startWarningWait(t, ctx, "transient-then-timeout")
	w.warn(ctx, "AuthParamsFailed")
	cancel()
	err := <-w.done
	require.ErrorIs(t, err, kube.ErrWaitTimeout)
	assert.Contains(t, err.Error(), "last Warning AuthParamsFailed: the test says AuthParamsFailed")
}
