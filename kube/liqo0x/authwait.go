package liqo0x

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// AuthStatus is the AuthenticationStatus peering condition of a
// consumer's ForeignCluster and the tenant namespaces it names.
type AuthStatus struct {
	Status, Reason, Message                     string // the AuthenticationStatus peering condition
	LocalTenantNamespace, RemoteTenantNamespace string
}

// identityWait bounds the wait for the identity Secret once Liqo
// said Established.
const identityWait = 10 * time.Second

// retryGrace is how long a refusal shown when Liqo was woken is taken
// for an earlier attempt's.
const retryGrace = 5 * time.Second

// refusedStatus are the AuthenticationStatus values of a refusal (§3.4):
// v0.10 says Error for all of them, v0.3 Denied/EmptyDenied.
var refusedStatus = map[string]bool{"Error": true, "Denied": true, "EmptyDenied": true}

// WaitAuthenticated watches the ForeignCluster of providerID until
// Liqo authenticated it. A refusal ends the wait at once: Liqo retries with
// a backoff that cannot make a wrong token right. A refusal that quotes
// another token than the one stored now, or another auth URL than the
// ForeignCluster's, is an earlier attempt's and is not reported: the wait
// goes on for Liqo's next try.
func (c *Cluster) WaitAuthenticated(ctx context.Context, providerID string) (*AuthStatus, error) {
	return c.waitAuthenticated(ctx, providerID, nil)
}

// RetryAuthentication wakes Liqo's controller at once (a label bump:
// it would otherwise retry on its own backoff, §3.2) after what made it
// fail was removed, and waits as WaitAuthenticated does, except that
// a refusal shown before the wake-up (stale, or on the ForeignCluster when
// it was woken: an attempt made while the cause was being removed) is
// taken for an earlier attempt's. A refusal because the provider's tenant
// namespace is still being deleted (a reissue just deleted it, and the
// auth server's cache still holds it) wakes Liqo again, a few times.
func (c *Cluster) RetryAuthentication(ctx context.Context, providerID string, stale *AuthFailure) (*AuthStatus, error) {
	delay := tenantGoneDelay
	for attempt := 1; ; attempt++ {
		st, err := c.retryAuthentication(ctx, providerID, stale)
		var failure *AuthFailure
		if !errors.As(err, &failure) || !failure.tenantNamespaceGoing() || attempt == tenantGoneRetries {
			return st, err
		}
		// Nothing to watch: the auth server's namespace cache is its own.
		select {
		case <-ctx.Done():
			return st, err
		case <-time.After(delay):
		}
		stale, delay = failure, 2*delay
	}
}

// A provider's tenant namespace being deleted is gone from its auth
// server's cache moments after it is gone from the API.
const (
	tenantGoneRetries = 6 // 250 ms doubling: ~8 s in all, for a loaded machine
	tenantGoneDelay   = 250 * time.Millisecond
)

// tenantNamespaceGoing: the provider refused because the tenant namespace
// it found is being deleted, or was deleted since it listed it.
// Liqo words the second case as the API did: `namespaces "x" not found`
// (a create in it) or `Namespace "x" not found` (its own lookup).
func (f *AuthFailure) tenantNamespaceGoing() bool {
	return strings.Contains(f.Message, "because it is being terminated") || namespaceNotFound.MatchString(f.Message)
}

var namespaceNotFound = regexp.MustCompile(`(?i)namespaces? "[^"]*" not found`)

func (c *Cluster) retryAuthentication(ctx context.Context, providerID string, stale *AuthFailure) (*AuthStatus, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	fc, err := c.foreignCluster(ctx, fcs, providerID)
	if err != nil {
		return nil, err
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, ReconcileLabel, strconv.FormatInt(time.Now().UnixNano(), 10))
	woken, err := fcs.Patch(ctx, fc.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("waking Liqo's controller on ForeignCluster %s: %w", fc.GetName(), err)
	}
	earlier := map[string]bool{}
	if stale != nil {
		earlier[stale.Message] = true
	}
	if status, _, message := peeringCondition(woken, authCondition); refusedStatus[status] {
		earlier[message] = true
	}
	// Liqo answers a wake-up within a second or so: a refusal still shown
	// after the grace is the answer to it (Liqo writes nothing when it
	// fails again the same way).
	graceCtx, cancel := context.WithTimeout(ctx, retryGrace)
	defer cancel()
	st, err := c.waitAuthenticated(graceCtx, providerID, earlier)
	if errors.Is(err, kube.ErrWaitTimeout) && ctx.Err() == nil {
		return c.waitAuthenticated(ctx, providerID, nil)
	}
	return st, err
}

// waitAuthenticated ignores refusals whose message is in earlier.
func (c *Cluster) waitAuthenticated(ctx context.Context, providerID string, earlier map[string]bool) (*AuthStatus, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	tokens, err := c.storedTokens(ctx, providerID)
	if err != nil {
		return nil, err
	}
	var last *AuthStatus
	var lastName string
	what := "the ForeignCluster of " + providerID + " to authenticate"
	fc, err := kube.WaitFor(ctx, kube.ListWatch(fcs.List, fcs.Watch, kube.BySelector(labels.Set{ClusterIDLabel: providerID}.String())), what,
		func(fc *unstructured.Unstructured) (bool, error) {
			if fc.GetDeletionTimestamp() != nil {
				return false, fmt.Errorf("ForeignCluster %s is being deleted: apply the peer info again once it is gone", fc.GetName())
			}
			st := authStatusOf(fc)
			last, lastName = st, fc.GetName()
			if st.Status == established {
				return true, nil
			}
			if failure := failureOf(fc, providerID, tokens); failure != nil && !earlier[failure.Message] {
				return false, failure
			}
			return false, nil
		})
	switch {
	case err == nil:
		return authStatusOf(fc), c.waitIdentity(ctx, providerID, fc.GetName())
	case errors.Is(err, kube.ErrWaitTimeout) && last == nil:
		return nil, fmt.Errorf("%w: no ForeignCluster labelled %s=%s appeared: apply the peer info first", kube.ErrWaitTimeout, ClusterIDLabel, providerID)
	case errors.Is(err, kube.ErrWaitTimeout):
		seen := last.Status
		if seen == "" {
			seen = "none yet (is liqo-controller-manager running?)"
		}
		if last.Reason != "" {
			seen += " (" + last.Reason + ")"
		}
		return nil, fmt.Errorf("%w: ForeignCluster %s did not authenticate with %s; last AuthenticationStatus: %s", kube.ErrWaitTimeout, lastName, providerID, seen)
	}
	return nil, err
}

// waitIdentity waits for the identity Secret behind an Established
// ForeignCluster. Liqo v0.10 leaves Established in place when a later
// identity request fails (it returns before updating the status): a
// consumer that lost its identity Secret while the provider kept the
// certificate shows Established and holds nothing. Unreadable Secrets end
// the wait (the caller reads what it can).
func (c *Cluster) waitIdentity(ctx context.Context, providerID, fcName string) error {
	// Liqo stores it right after the status: a bounded wait, not the step's.
	ctx, cancel := context.WithTimeout(ctx, identityWait)
	defer cancel()
	secrets := c.Kube.CoreV1().Secrets(metav1.NamespaceAll)
	_, err := kube.WaitFor(ctx, kube.ListWatch(secrets.List, secrets.Watch, kube.BySelector(identitySelector(providerID))),
		"the identity Secret of "+providerID, func(s *corev1.Secret) (bool, error) {
			return len(s.Data[identityCertField]) > 0, nil
		})
	switch {
	case err == nil || apierrors.IsForbidden(err) || errors.Is(err, kube.ErrWatchForbidden):
		return nil
	case errors.Is(err, kube.ErrWaitTimeout):
		return &AuthFailure{ProviderID: providerID, Status: established, Refusal: AlreadyIssued,
			Message: "ForeignCluster " + fcName + " says Established but this cluster holds no identity for " + providerID +
				": Liqo's new identity requests are refused (the provider keeps the one it issued to this cluster)"}
	}
	return err
}

// storedTokens are the tokens the consumer may send to providerID.
func (c *Cluster) storedTokens(ctx context.Context, providerID string) (map[string]bool, error) {
	sel := metav1.ListOptions{LabelSelector: tokenSelector(providerID)}
	list, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, sel)
	if apierrors.IsForbidden(err) {
		list, err = c.Kube.CoreV1().Secrets(c.Namespace).List(ctx, sel)
	}
	if err != nil {
		return nil, fmt.Errorf("listing the token Secrets for %s: %w", providerID, err)
	}
	tokens := map[string]bool{}
	for _, s := range list.Items {
		if tok, ok := s.Data[AuthTokenField]; ok {
			tokens[string(tok)] = true
		}
	}
	return tokens, nil
}

// authStatusOf reads a ForeignCluster's AuthenticationStatus.
func authStatusOf(fc *unstructured.Unstructured) *AuthStatus {
	st := &AuthStatus{}
	st.Status, st.Reason, st.Message = peeringCondition(fc, authCondition)
	st.LocalTenantNamespace, _, _ = unstructured.NestedString(fc.Object, "status", "tenantNamespace", "local")
	st.RemoteTenantNamespace, _, _ = unstructured.NestedString(fc.Object, "status", "tenantNamespace", "remote")
	return st
}

// peeringCondition is the peering condition of type condType ("" when unset).
func peeringCondition(fc *unstructured.Unstructured, condType string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(fc.Object, "status", "peeringConditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != condType {
			continue
		}
		status, _ = m["status"].(string)
		reason, _ = m["reason"].(string)
		message, _ = m["message"].(string)
		return status, reason, message
	}
	return "", "", ""
}

var (
	quotedTokenPattern = regexp.MustCompile(`invalid token "([^"]*)"`)
	postURLPattern     = regexp.MustCompile(`Post "([^"]*)"`)
	hexTokenPattern    = regexp.MustCompile(`[0-9a-f]{128}`)
	transportPattern   = regexp.MustCompile(`Post "|dial tcp|Client\.Timeout|x509:|tls:|connection refused|no such host|EOF`)
)

// failureOf is the refusal a ForeignCluster shows now, nil while it
// may still authenticate or when the refusal is an earlier attempt's.
func failureOf(fc *unstructured.Unstructured, providerID string, tokens map[string]bool) *AuthFailure {
	authURL, _, _ := unstructured.NestedString(fc.Object, "spec", "foreignAuthUrl")
	if status, reason, message := peeringCondition(fc, processCondition); status == "Error" {
		// Liqo does not process it at all (LocalCluster, ClusterIDRepetition, InvalidProxyURL).
		return &AuthFailure{ProviderID: providerID, AuthURL: authURL, Status: status, Reason: reason, Message: message, Refusal: OtherRefusal}
	}
	status, reason, message := peeringCondition(fc, authCondition)
	if !refusedStatus[status] {
		return nil
	}
	if m := quotedTokenPattern.FindStringSubmatch(message); m != nil && len(tokens) > 0 && !tokens[m[1]] {
		return nil
	}
	if m := postURLPattern.FindStringSubmatch(message); m != nil && authURL != "" && !strings.HasPrefix(m[1], authURL) {
		return nil
	}
	return &AuthFailure{ProviderID: providerID, AuthURL: authURL, Status: status, Reason: reason, Message: message,
		Refusal: classifyCondition(reason, message)}
}

// classifyCondition reads the refusal out of a condition: Liqo quotes
// the provider's answer after "failed to send identity request: " and a
// transport error as Go's client prints it (§3.4).
func classifyCondition(reason, message string) Refusal {
	if reason == authNotReachable {
		return Unreachable
	}
	const sent = "failed to send identity request: "
	i := strings.Index(message, sent)
	if i < 0 {
		return ClassifyRefusal(-1, message)
	}
	body := message[i+len(sent):]
	switch {
	case strings.TrimSpace(body) == "":
		return ClassifyRefusal(403, body) // the provider's empty 403: same CSR already signed
	case transportPattern.MatchString(body) && ClassifyRefusal(-1, body) == OtherRefusal:
		return ClassifyRefusal(0, body)
	}
	return ClassifyRefusal(-1, body)
}

// AuthFailure is a 0.x consumer's refused authentication, as its
// ForeignCluster shows it.
type AuthFailure struct {
	ProviderID, AuthURL, Status, Reason, Message string
	Refusal                                      Refusal
}

// Error is one line: the cause in words and what to do; tokens masked.
func (f *AuthFailure) Error() string {
	said := strings.Join(strings.Fields(RedactTokens(f.Message)), " ") // the provider's body ends with a newline
	switch f.Refusal {
	case WrongToken:
		return fmt.Sprintf("the provider %s refused the token (%s): it is not the provider's current auth-token; generate the peer info again on the provider and apply it", f.ProviderID, said)
	case AlreadyIssued:
		return fmt.Sprintf("the provider %s already issued an identity for this cluster ID and issues only one (%s): on the provider, delete Secret liqo-remote-certificate in the tenant namespace labelled %s=<this cluster's ID> (or that namespace), then apply again",
			f.ProviderID, orStatus(said, f), ClusterIDLabel)
	case Unreachable:
		return fmt.Sprintf("the authentication service of %s is not reachable at %s (%s): check the auth URL and that liqo-auth runs and is reachable from this cluster's liqo-controller-manager",
			f.ProviderID, f.AuthURL, orStatus(said, f))
	case Incompatible:
		return fmt.Sprintf("the provider %s read the identity request in another format (%s): %s", f.ProviderID, said, IncompatibleAdvice)
	}
	return fmt.Sprintf("authentication with %s failed: %s: %s; fix the cause, then apply again", f.ProviderID, f.Status+" "+f.Reason, orStatus(said, f))
}

func orStatus(said string, f *AuthFailure) string {
	if said == "" {
		return f.Status + " " + f.Reason
	}
	return said
}

// RedactTokens masks every 0.x token in s (Liqo's 401 body quotes
// the token sent).
func RedactTokens(s string) string {
	s = quotedTokenPattern.ReplaceAllStringFunc(s, func(m string) string {
		tok := quotedTokenPattern.FindStringSubmatch(m)[1]
		return `invalid token "` + peerinfo.MaskToken(tok) + `"`
	})
	return hexTokenPattern.ReplaceAllStringFunc(s, peerinfo.MaskToken)
}
