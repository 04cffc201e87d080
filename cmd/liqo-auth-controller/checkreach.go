package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// checkReach is the controller's check-reach mode (kube.ReachCheckMode):
// a short-lived Pod dials an advertised API server once from inside its
// cluster and writes what it saw (kube.ReachCheckReport) to its
// termination message and stdout. It uses no credentials: a 401 proves the
// address and the CA right. Exit code 0: reachable, 1: not, 2: bad usage.
func checkReach(ctx context.Context, args []string, stdout io.Writer) int {
	fs := pflag.NewFlagSet(name+" "+kube.ReachCheckMode, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	apiServer := fs.String("api-server", "", "the API server to dial (https://host:port)")
	caB64 := fs.String("ca", "", "its CA bundle, base64 PEM (default: the system roots)")
	proxyURL := fs.String("proxy-url", "", "the proxy to reach it through")
	reportFile := fs.String("report-file", "/dev/termination-log", "where the JSON report goes besides stdout")
	if err := fs.Parse(args); err != nil || *apiServer == "" || fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s %s: usage: --api-server=https://host:port [--ca=<base64 PEM>] [--proxy-url=URL] (%v)\n", name, kube.ReachCheckMode, err)
		return 2
	}
	ca, err := base64.StdEncoding.DecodeString(*caB64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: --ca is not base64: %v\n", name, kube.ReachCheckMode, err)
		return 2
	}
	report := kube.ReachCheck(ctx, *apiServer, ca, *proxyURL)
	b, _ := json.Marshal(report)
	fmt.Fprintln(stdout, string(b))
	if err := os.WriteFile(*reportFile, b, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", name, kube.ReachCheckMode, err)
	}
	if !report.Reachable {
		return 1
	}
	return 0
}
