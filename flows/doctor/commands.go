package doctor

import (
	"strings"

	"github.com/liqo-auth-tui/liqo-auth-tui/flows"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"
)

// The checks write their fix commands with placeholders for the clusters'
// kubeconfigs ("--kubeconfig <provider's kubeconfig>"), since a check
// knows roles, not files. Run fills them with the kubeconfig and
// context doctor itself was given, so that a fix runs as printed.

// kubeconfigPlaceholders names a cluster in the fix commands: by its role
// in the peering, or as "the remote cluster".
func kubeconfigPlaceholders(role handshake.Role) []string {
	if role == handshake.RoleUnknown {
		return nil
	}
	return []string{"<" + string(role) + "'s kubeconfig>", "<the " + string(role) + "'s kubeconfig>"}
}

// fillKubeconfigs replaces the placeholders of fix with the flags that
// reach each cluster: local plays localRole (unknown for cluster checks).
// A placeholder stays when doctor was not told how a cluster was reached.
func (o Options) fillKubeconfigs(fix string, localRole handshake.Role, scope handshake.Scope) string {
	if fix == "" || !strings.Contains(fix, "kubeconfig>") {
		return fix
	}
	local := kubeconfigPlaceholders(localRole)
	remote := append(kubeconfigPlaceholders(localRole.Other()), "<the remote cluster's kubeconfig>")
	if localRole == handshake.RoleUnknown && scope == handshake.Local {
		local, remote = remote, nil // a cluster check of the local cluster
	}
	if o.LocalRef != nil {
		for _, p := range local {
			fix = fillFlags(fix, p, *o.LocalRef, true)
		}
	}
	if o.Remote != nil && o.RemoteRef != nil {
		for _, p := range remote {
			fix = fillFlags(fix, p, *o.RemoteRef, false)
		}
	}
	return fix
}

// fillFlags replaces "--kubeconfig <p>" and "--remote-kubeconfig <p>"
// with ref's flags. The local cluster on its default kubeconfig needs no
// --kubeconfig; as the remote of another command it keeps its placeholder,
// which has no default.
func fillFlags(fix, placeholder string, ref flows.ClusterRef, isDefaultOK bool) string {
	for _, prefix := range []string{"", "remote-"} {
		flag := " --" + prefix + "kubeconfig " + placeholder
		if !strings.Contains(fix, flag) {
			continue
		}
		var with string
		switch {
		case ref.Kubeconfig != "":
			with = " --" + prefix + "kubeconfig " + shellQuote(ref.Kubeconfig)
		case prefix == "" && isDefaultOK:
		default:
			continue
		}
		if ref.Context != "" {
			with += " --" + prefix + "context " + shellQuote(ref.Context)
		}
		fix = strings.ReplaceAll(fix, flag, with)
	}
	return fix
}

// shellQuote quotes s for a shell when it holds anything but plain path
// characters.
func shellQuote(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~:@=+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// onCluster marks a fix command that runs on the cluster playing role
// when that cluster is the remote one: it gets that cluster's kubeconfig
// (a placeholder fillKubeconfigs fills).
func onCluster(role handshake.Role, scope handshake.Scope, command string) string {
	if scope == handshake.Remote {
		return command + " --kubeconfig <" + string(role) + "'s kubeconfig>"
	}
	return command
}
