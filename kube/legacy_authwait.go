package kube

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

	"github.com/liqo-auth-tui/liqo-auth-tui/kube/legacypeer"
)

// LegacyAuthStatus is the AuthenticationStatus peering condition of a
// consumer's ForeignCluster and the tenant namespaces it names.
type LegacyAuthStatus struct {
	Status, Reason, Message                     string // the AuthenticationStatus peering condition
	LocalTenantNamespace, RemoteTenantNamespace string
}

// legacyIdentityWait bounds the wait for the identity Secret once Liqo
// said Established.
const legacyIdentityWait = 10 * time.Second

// legacyRetryGrace is how long a refusal shown when Liqo was woken is taken
// for an earlier attempt's.
const legacyRetryGrace = 5 * time.Second

// legacyFailed are the AuthenticationStatus values of a refusal (§3.4):
// v0.10 says Error for all of them, v0.3 Denied/EmptyDenied.
var legacyFailed = map[string]bool{"Error": true, "Denied": true, "EmptyDenied": true}

// WaitLegacyAuthenticated watches the ForeignCluster of providerID until
// Liqo authenticated it. A refusal ends the wait at once: Liqo retries with
// a backoff that cannot make a wrong token right. A refusal that quotes
// another token than the one stored now, or another auth URL than the
// ForeignCluster's, is an earlier attempt's and is not reported: the wait
// goes on for Liqo's next try.
func (c *Cluster) WaitLegacyAuthenticated(ctx context.Context, providerID string) (*LegacyAuthStatus, error) {
	return c.waitLegacyAuthenticated(ctx, providerID, nil)
}

// RetryLegacyAuthentication wakes Liqo's controller at once (a label bump:
// it would otherwise retry on its own backoff, §3.2) after what made it
// fail was removed, and waits as WaitLegacyAuthenticated does, except that
// a refusal shown before the wake-up (stale, or on the ForeignCluster when
// it was woken: an attempt made while the cause was being removed) is
// taken for an earlier attempt's.
func (c *Cluster) RetryLegacyAuthentication(ctx context.Context, providerID string, stale *LegacyAuthFailure) (*LegacyAuthStatus, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	fc, err := c.legacyForeignCluster(ctx, fcs, providerID)
	if err != nil {
		return nil, err
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, LegacyReconcileLabel, strconv.FormatInt(time.Now().UnixNano(), 10))
	woken, err := fcs.Patch(ctx, fc.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("waking Liqo's controller on ForeignCluster %s: %w", fc.GetName(), err)
	}
	earlier := map[string]bool{}
	if stale != nil {
		earlier[stale.Message] = true
	}
	if status, _, message := legacyCondition(woken, legacyAuthCondition); legacyFailed[status] {
		earlier[message] = true
	}
	// Liqo answers a wake-up within a second or so: a refusal still shown
	// after the grace is the answer to it (Liqo writes nothing when it
	// fails again the same way).
	graceCtx, cancel := context.WithTimeout(ctx, legacyRetryGrace)
	defer cancel()
	st, err := c.waitLegacyAuthenticated(graceCtx, providerID, earlier)
	if errors.Is(err, ErrWaitTimeout) && ctx.Err() == nil {
		return c.waitLegacyAuthenticated(ctx, providerID, nil)
	}
	return st, err
}

// waitLegacyAuthenticated ignores refusals whose message is in earlier.
func (c *Cluster) waitLegacyAuthenticated(ctx context.Context, providerID string, earlier map[string]bool) (*LegacyAuthStatus, error) {
	fcs, err := c.foreignClusters()
	if err != nil {
		return nil, err
	}
	tokens, err := c.legacyStoredTokens(ctx, providerID)
	if err != nil {
		return nil, err
	}
	var last *LegacyAuthStatus
	var lastName string
	what := "the ForeignCluster of " + providerID + " to authenticate"
	fc, err := WaitFor(ctx, ListWatch(fcs.List, fcs.Watch, BySelector(labels.Set{LegacyClusterIDLabel: providerID}.String())), what,
		func(fc *unstructured.Unstructured) (bool, error) {
			if fc.GetDeletionTimestamp() != nil {
				return false, fmt.Errorf("ForeignCluster %s is being deleted: apply the peer info again once it is gone", fc.GetName())
			}
			st := legacyAuthStatusOf(fc)
			last, lastName = st, fc.GetName()
			if st.Status == legacyEstablished {
				return true, nil
			}
			if failure := legacyFailureOf(fc, providerID, tokens); failure != nil && !earlier[failure.Message] {
				return false, failure
			}
			return false, nil
		})
	switch {
	case err == nil:
		return legacyAuthStatusOf(fc), c.waitLegacyIdentity(ctx, providerID, fc.GetName())
	case errors.Is(err, ErrWaitTimeout) && last == nil:
		return nil, fmt.Errorf("%w: no ForeignCluster labelled %s=%s appeared: apply the peer info first", ErrWaitTimeout, LegacyClusterIDLabel, providerID)
	case errors.Is(err, ErrWaitTimeout):
		seen := last.Status
		if seen == "" {
			seen = "none yet (is liqo-controller-manager running?)"
		}
		if last.Reason != "" {
			seen += " (" + last.Reason + ")"
		}
		return nil, fmt.Errorf("%w: ForeignCluster %s did not authenticate with %s; last AuthenticationStatus: %s", ErrWaitTimeout, lastName, providerID, seen)
	}
	return nil, err
}

// waitLegacyIdentity waits for the identity Secret behind an Established
// ForeignCluster. Liqo v0.10 leaves Established in place when a later
// identity request fails (it returns before updating the status): a
// consumer that lost its identity Secret while the provider kept the
// certificate shows Established and holds nothing. Unreadable Secrets end
// the wait (the caller reads what it can).
func (c *Cluster) waitLegacyIdentity(ctx context.Context, providerID, fcName string) error {
	// Liqo stores it right after the status: a bounded wait, not the step's.
	ctx, cancel := context.WithTimeout(ctx, legacyIdentityWait)
	defer cancel()
	secrets := c.Kube.CoreV1().Secrets(metav1.NamespaceAll)
	_, err := WaitFor(ctx, ListWatch(secrets.List, secrets.Watch, BySelector(legacyIdentitySelector(providerID))),
		"the identity Secret of "+providerID, func(s *corev1.Secret) (bool, error) {
			return len(s.Data[legacyIdentityCertField]) > 0, nil
		})
	switch {
	case err == nil || apierrors.IsForbidden(err) || errors.Is(err, errWatchForbidden):
		return nil
	case errors.Is(err, ErrWaitTimeout):
		return &LegacyAuthFailure{ProviderID: providerID, Status: legacyEstablished, Refusal: LegacyAlreadyIssued,
			Message: "ForeignCluster " + fcName + " says Established but this cluster holds no identity for " + providerID +
				": Liqo's new identity requests are refused (the provider keeps the one it issued to this cluster)"}
	}
	return err
}

// legacyStoredTokens are the tokens the consumer may send to providerID.
func (c *Cluster) legacyStoredTokens(ctx context.Context, providerID string) (map[string]bool, error) {
	sel := metav1.ListOptions{LabelSelector: legacyTokenSelector(providerID)}
	list, err := c.Kube.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, sel)
	if apierrors.IsForbidden(err) {
		list, err = c.Kube.CoreV1().Secrets(c.Namespace).List(ctx, sel)
	}
	if err != nil {
		return nil, fmt.Errorf("listing the token Secrets for %s: %w", providerID, err)
	}
	tokens := map[string]bool{}
	for _, s := range list.Items {
		if tok, ok := s.Data[LegacyAuthTokenField]; ok {
			tokens[string(tok)] = true
		}
	}
	return tokens, nil
}

// legacyAuthStatusOf reads a ForeignCluster's AuthenticationStatus.
func legacyAuthStatusOf(fc *unstructured.Unstructured) *LegacyAuthStatus {
	st := &LegacyAuthStatus{}
	st.Status, st.Reason, st.Message = legacyCondition(fc, legacyAuthCondition)
	st.LocalTenantNamespace, _, _ = unstructured.NestedString(fc.Object, "status", "tenantNamespace", "local")
	st.RemoteTenantNamespace, _, _ = unstructured.NestedString(fc.Object, "status", "tenantNamespace", "remote")
	return st
}

// legacyCondition is the peering condition of type condType ("" when unset).
func legacyCondition(fc *unstructured.Unstructured, condType string) (status, reason, message string) {
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

// legacyFailureOf is the refusal a ForeignCluster shows now, nil while it
// may still authenticate or when the refusal is an earlier attempt's.
func legacyFailureOf(fc *unstructured.Unstructured, providerID string, tokens map[string]bool) *LegacyAuthFailure {
	authURL, _, _ := unstructured.NestedString(fc.Object, "spec", "foreignAuthUrl")
	if status, reason, message := legacyCondition(fc, legacyProcessCondition); status == "Error" {
		// Liqo does not process it at all (LocalCluster, ClusterIDRepetition, InvalidProxyURL).
		return &LegacyAuthFailure{ProviderID: providerID, AuthURL: authURL, Status: status, Reason: reason, Message: message, Refusal: LegacyOther}
	}
	status, reason, message := legacyCondition(fc, legacyAuthCondition)
	if !legacyFailed[status] {
		return nil
	}
	if m := quotedTokenPattern.FindStringSubmatch(message); m != nil && len(tokens) > 0 && !tokens[m[1]] {
		return nil
	}
	if m := postURLPattern.FindStringSubmatch(message); m != nil && authURL != "" && !strings.HasPrefix(m[1], authURL) {
		return nil
	}
	return &LegacyAuthFailure{ProviderID: providerID, AuthURL: authURL, Status: status, Reason: reason, Message: message,
		Refusal: classifyLegacyCondition(reason, message)}
}

// classifyLegacyCondition reads the refusal out of a condition: Liqo quotes
// the provider's answer after "failed to send identity request: " and a
// transport error as Go's client prints it (§3.4).
func classifyLegacyCondition(reason, message string) LegacyRefusal {
	if reason == legacyAuthNotReachable {
		return LegacyUnreachable
	}
	const sent = "failed to send identity request: "
	i := strings.Index(message, sent)
	if i < 0 {
		return ClassifyLegacyRefusal(-1, message)
	}
	body := message[i+len(sent):]
	switch {
	case strings.TrimSpace(body) == "":
		return ClassifyLegacyRefusal(403, body) // the provider's empty 403: same CSR already signed
	case transportPattern.MatchString(body) && ClassifyLegacyRefusal(-1, body) == LegacyOther:
		return ClassifyLegacyRefusal(0, body)
	}
	return ClassifyLegacyRefusal(-1, body)
}

// LegacyAuthFailure is a 0.x consumer's refused authentication, as its
// ForeignCluster shows it.
type LegacyAuthFailure struct {
	ProviderID, AuthURL, Status, Reason, Message string
	Refusal                                      LegacyRefusal
}

// Error is one line: the cause in words and what to do; tokens masked.
func (f *LegacyAuthFailure) Error() string {
	said := strings.Join(strings.Fields(RedactLegacyTokens(f.Message)), " ") // the provider's body ends with a newline
	switch f.Refusal {
	case LegacyWrongToken:
		return fmt.Sprintf("the provider %s refused the token (%s): it is not the provider's current auth-token; generate the peer info again on the provider and apply it", f.ProviderID, said)
	case LegacyAlreadyIssued:
		return fmt.Sprintf("the provider %s already issued an identity for this cluster ID and issues only one (%s): on the provider, delete Secret liqo-remote-certificate in the tenant namespace labelled %s=<this cluster's ID> (or that namespace), then apply again",
			f.ProviderID, legacyOrStatus(said, f), LegacyClusterIDLabel)
	case LegacyUnreachable:
		return fmt.Sprintf("the authentication service of %s is not reachable at %s (%s): check the auth URL and that liqo-auth runs and is reachable from this cluster's liqo-controller-manager",
			f.ProviderID, f.AuthURL, legacyOrStatus(said, f))
	case LegacyIncompatible:
		return fmt.Sprintf("the provider %s read the identity request in another format (%s): %s", f.ProviderID, said, LegacyIncompatibleAdvice)
	}
	return fmt.Sprintf("authentication with %s failed: %s: %s; fix the cause, then apply again", f.ProviderID, f.Status+" "+f.Reason, legacyOrStatus(said, f))
}

func legacyOrStatus(said string, f *LegacyAuthFailure) string {
	if said == "" {
		return f.Status + " " + f.Reason
	}
	return said
}

// RedactLegacyTokens masks every 0.x token in s (Liqo's 401 body quotes
// the token sent).
func RedactLegacyTokens(s string) string {
	s = quotedTokenPattern.ReplaceAllStringFunc(s, func(m string) string {
		tok := quotedTokenPattern.FindStringSubmatch(m)[1]
		return `invalid token "` + legacypeer.MaskToken(tok) + `"`
	})
	return hexTokenPattern.ReplaceAllStringFunc(s, legacypeer.MaskToken)
}
