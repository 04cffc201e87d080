// Command lab-scrape runs in a lab Pod and scrapes Prometheus /metrics
// endpoints as a Prometheus in the cluster would: for each URL it reports
// the HTTP status and the metric families whose names start with --prefix,
// as JSON in the container's termination message, which the test reads
// from the Pod's status. It proves that /metrics answers inside the
// cluster, from the Pod network, not only from the host.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// Scrape is one URL's answer.
type Scrape struct {
	URL      string   `json:"url"`
	Status   int      `json:"status,omitempty"`
	Families []string `json:"families,omitempty"`
	Error    string   `json:"error,omitempty"`
}

func main() {
	prefix := flag.String("prefix", "liqo_auth_", "report the metric families whose names start with it")
	out := flag.String("report", "/dev/termination-log", "where the JSON report goes")
	flag.Parse()
	var report []Scrape
	failed := false
	for _, url := range flag.Args() {
		s := scrape(url, *prefix)
		failed = failed || s.Error != "" || s.Status != http.StatusOK
		report = append(report, s)
	}
	b, _ := json.Marshal(report)
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "lab-scrape:", err)
	}
	if failed {
		os.Exit(1)
	}
}

func scrape(url, prefix string) Scrape {
	s := Scrape{URL: url}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	// The text exposition format: one "# TYPE <name> <type>" per family.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "# TYPE "); ok && strings.HasPrefix(name, prefix) {
			s.Families = append(s.Families, strings.Fields(name)[0])
		}
	}
	if err := sc.Err(); err != nil {
		s.Error = err.Error()
	}
	return s
}
