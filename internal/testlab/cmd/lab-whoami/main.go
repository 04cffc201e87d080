// Command lab-whoami runs in a lab Pod with a kubeconfig mounted from a
// Secret: it asks that kubeconfig's API server who its credentials make it
// (a SelfSubjectReview) and reports the answer, or why there is none, as
// JSON in the container's termination message, which the test reads from
// the Pod's status. It proves that a kubeconfig works from the Pods of a
// cluster, not only from the host that made it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Report is what the termination message holds.
type Report struct {
	Server string   `json:"server"`
	User   string   `json:"user,omitempty"`
	Groups []string `json:"groups,omitempty"`
	Error  string   `json:"error,omitempty"`
}

func main() {
	kubeconfig := flag.String("kubeconfig", "/kubeconfig/kubeconfig", "the mounted kubeconfig")
	out := flag.String("report", "/dev/termination-log", "where the JSON report goes")
	flag.Parse()
	r := whoAmI(*kubeconfig)
	b, _ := json.Marshal(r)
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "lab-whoami:", err)
	}
	if r.Error != "" {
		os.Exit(1)
	}
}

func whoAmI(kubeconfig string) Report {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return Report{Error: err.Error()}
	}
	r := Report{Server: cfg.Host}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	who, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.User, r.Groups = who.Status.UserInfo.Username, who.Status.UserInfo.Groups
	return r
}
