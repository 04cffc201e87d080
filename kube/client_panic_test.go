package kube_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

func TestRecoverAsErrorTurnsAGoroutinePanicIntoItsError(t *testing.T) {
	var g errgroup.Group
	g.Go(func() (err error) {
		defer kube.RecoverAsError(&err, "checking access")
		var m map[string]int
		m["x"]++ // a nil-map write: a runtime panic
		return nil
	})
	err := g.Wait()
	var p *kube.PanicError
	require.True(t, errors.As(err, &p), "got %v", err)
	assert.Contains(t, err.Error(), "internal error: checking access panicked: assignment to entry in nil map")
	assert.NotContains(t, err.Error(), "\n", "one line")
	assert.True(t, strings.Contains(string(p.Stack), "panic_test.go"), "the stack names where it panicked")

	g = errgroup.Group{}
	g.Go(func() (err error) {
		defer kube.RecoverAsError(&err, "checking access")
		return errors.New("forbidden")
	})
	assert.EqualError(t, g.Wait(), "forbidden", "an error without a panic is kept")
}
