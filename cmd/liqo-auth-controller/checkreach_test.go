package main_test

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// check-reach dials once and reports in its report file (the Pod's
// termination message): an API server that answers 401 with the given CA
// is reachable (exit 0); a closed port is not (exit 1), with its cause; a
// missing --api-server is a usage error (exit 2).
func TestCheckReachReports(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"kind":"Status","code":401}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	report := func(args ...string) (kube.ReachCheckReport, int) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "report")
		cmd := exec.Command(binary, append([]string{kube.ReachCheckMode, "--report-file=" + file}, args...)...)
		err := cmd.Run()
		var r kube.ReachCheckReport
		if b, readErr := os.ReadFile(file); readErr == nil {
			require.NoError(t, json.Unmarshal(b, &r))
		}
		if err != nil {
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			return r, exit.ExitCode()
		}
		return r, 0
	}

	r, code := report("--api-server="+srv.URL, "--ca="+base64.StdEncoding.EncodeToString(ca))
	assert.Equal(t, 0, code)
	assert.True(t, r.Reachable, "%+v", r)

	closed := httptest.NewServer(http.NotFoundHandler())
	addr := closed.URL
	closed.Close()
	r, code = report("--api-server=" + addr)
	assert.Equal(t, 1, code)
	assert.False(t, r.Reachable)
	assert.Equal(t, string(kube.FailureRefused), r.Class)

	_, code = report()
	assert.Equal(t, 2, code)
}
