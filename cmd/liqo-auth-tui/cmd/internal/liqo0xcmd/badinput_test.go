//go:build cluster

package liqo0xcmd_test

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	authcrypto "github.com/liqo-auth-tui/liqo-auth-tui/crypto"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/artifact"
	"github.com/liqo-auth-tui/liqo-auth-tui/flows/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/lab"
	"github.com/liqo-auth-tui/liqo-auth-tui/internal/testlab/realliqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
	kliqo0x "github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x"
	"github.com/liqo-auth-tui/liqo-auth-tui/kube/liqo0x/peerinfo"
)

// badCase is one bad peer info or bad flag given to apply peer-info.
type badCase struct {
	name string
	// peerInfo is the file's content (args: the command line instead, with
	// FILE for the provider's good peer info and CONSUMER for the consumer's
	// kubeconfig).
	peerInfo string
	args     []string
	// dials: it fails only once a cluster or the auth server answered, so
	// progress lines may come first.
	dials bool
	// liqoOnly: bad only for a consumer running Liqo 0.x.
	liqoOnly bool
}

// badCases is the corpus: each must exit non-zero with one line (and at
// most one of remedy), echo no token, and write nothing anywhere.
func badCases(t *testing.T, good *peerinfo.Info, line, ownID string) []badCase {
	t.Helper()
	nonce, err := authcrypto.NewNonce()
	require.NoError(t, err)
	garbage := make([]byte, 300)
	_, err = rand.Read(garbage)
	require.NoError(t, err)
	body := strings.TrimPrefix(line, "liqo-0x-peer-info:")
	edited := []byte(line)
	i := len("liqo-0x-peer-info:") + len(body)/2
	if edited[i] == 'A' {
		edited[i] = 'B'
	} else {
		edited[i] = 'A'
	}
	with := func(edit func(*peerinfo.Info)) *peerinfo.Info {
		c := *good
		edit(&c)
		return &c
	}
	fields := func(info *peerinfo.Info) map[string]any {
		return map[string]any{"clusterID": info.ClusterID, "clusterName": info.ClusterName, "authURL": info.AuthURL,
			"token": info.Token, "line": string(info.Line)}
	}
	unknownField := fields(good)
	unknownField["insecure"] = true
	return []badCase{
		{name: "empty", peerInfo: ""},
		{name: "blank lines", peerInfo: "\n  \n\t\n"},
		{name: "truncated", peerInfo: line[:len(line)-20]},
		{name: "checksum cut", peerInfo: line[:len(line)-3]},
		{name: "edited", peerInfo: string(edited)},
		{name: "prefix only", peerInfo: "liqo-0x-peer-info:"},
		{name: "two peer infos", peerInfo: line + "\n" + line},
		{name: "text before it", peerInfo: "peer info: " + line},
		{name: "nonce", peerInfo: nonce},
		{name: "bare token", peerInfo: good.Token},
		{name: "liqoctl command", peerInfo: liqo0x.LiqoctlPeerCommand(good)},
		{name: "Tenant YAML", peerInfo: "apiVersion: authentication.liqo.io/v1beta1\nkind: Tenant\nmetadata:\n  name: tenant-x\nspec:\n  clusterID: x\n"},
		{name: "kubeconfig", peerInfo: "apiVersion: v1\nkind: Config\nclusters: []\n"},
		{name: "garbage", peerInfo: string(garbage)},
		{name: "too large", peerInfo: strings.Repeat("A", artifact.MaxSize+1)},
		{name: "unknown field", peerInfo: encodeUnchecked(t, unknownField)},
		{name: "token 127 hex", peerInfo: encodeUnchecked(t, fields(with(func(i *peerinfo.Info) { i.Token = i.Token[1:] })))},
		{name: "token upper-case hex", peerInfo: encodeUnchecked(t, fields(with(func(i *peerinfo.Info) { i.Token = strings.ToUpper(i.Token) })))},
		{name: "token not hex", peerInfo: encodeUnchecked(t, fields(with(func(i *peerinfo.Info) { i.Token = strings.Repeat("z", 128) })))},
		{name: "http auth URL", peerInfo: encodeUnchecked(t, fields(with(func(i *peerinfo.Info) {
			i.AuthURL = strings.Replace(i.AuthURL, "https://", "http://", 1)
		})))},
		{name: "cluster ID not a DNS label", peerInfo: encodeUnchecked(t, fields(with(func(i *peerinfo.Info) { i.ClusterID = "Not_A_Cluster" })))},
		{name: "the consumer's own cluster ID", dials: true, peerInfo: encode(t, with(func(i *peerinfo.Info) { i.ClusterID = ownID }))},
		{name: "v0.3 peer info for a v0.4+ consumer", dials: true, liqoOnly: true, peerInfo: encode(t, with(func(i *peerinfo.Info) {
			i.Line, i.Version = peerinfo.V03, "v0.3.2"
		}))},
		{name: "unreachable auth URL", dials: true, peerInfo: encode(t, with(func(i *peerinfo.Info) {
			i.AuthURL = "https://" + realliqo0x.FreeAddress(t)
		}))},
		{name: "missing file", args: []string{"apply", "peer-info", "-f", "/nonexistent/peer-info", "--kubeconfig", "CONSUMER"}},
		{name: "bad --foreign-cluster-name", args: []string{"apply", "peer-info", "-f", "FILE", "--kubeconfig", "CONSUMER", "--foreign-cluster-name", "Bad_Name"}},
		{name: "bad --cluster-name", args: []string{"apply", "peer-info", "-f", "FILE", "--kubeconfig", "CONSUMER", "--cluster-name", "UPPER_case"}},
		{name: "bad --step-timeout", args: []string{"apply", "peer-info", "-f", "FILE", "--kubeconfig", "CONSUMER", "--step-timeout", "soon"}},
		// The auth URL presents another certificate than the pinned one.
		{name: "auth server not the pinned one", dials: true, args: []string{"apply", "peer-info", "-f", "FILE", "--kubeconfig", "CONSUMER",
			"--provider-fingerprint", "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"}},
		{name: "malformed pin", args: []string{"apply", "peer-info", "-f", "FILE", "--kubeconfig", "CONSUMER", "--provider-fingerprint", "SHA256:abc"}},
		{name: "--batch auth server not the pinned one", dials: true, args: []string{"--batch", "--role", "consumer", "--remote-cluster-id", providerID,
			"--provider-fingerprint", "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU", "--peer-info-file", "FILE", "--kubeconfig", "CONSUMER"}},
		{name: "--batch peer info of another provider", args: []string{"--batch", "--role", "consumer", "--remote-cluster-id", "another-provider",
			"--peer-info-file", "FILE", "--kubeconfig", "CONSUMER"}},
		{name: "--batch --peer-info-file with a nonce", args: []string{"--batch", "--role", "consumer", "--remote-cluster-id", providerID,
			"--peer-info-file", "FILE", "--nonce", nonce, "--kubeconfig", "CONSUMER"}},
	}
}

// The corpus applied to a consumer: one line each, no token, and a full
// listing of both clusters identical before and after.
func testBadInput(t *testing.T, ctx context.Context, p *liqo0xLab, consumer *lab.Cluster, cons *kube.Cluster, ownID string) {
	if consumer == p.plain {
		t.Cleanup(p.cleanTool(t))
	} else {
		t.Cleanup(p.cleanLiqo(t))
	}
	file, _ := generate(t, p.provider)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	good := peerInfoOf(t, file)
	cases := badCases(t, good, strings.TrimSpace(string(data)), ownID)
	require.GreaterOrEqual(t, len(cases), 15)
	for _, c := range cases {
		if c.liqoOnly && consumer == p.plain {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if args == nil {
				args = []string{"apply", "peer-info", "-f", writeFile(t, "peer-info", c.peerInfo), "--kubeconfig", "CONSUMER"}
			}
			args = append([]string(nil), args...)
			for i, a := range args {
				switch a {
				case "FILE":
					args[i] = file
				case "CONSUMER":
					args[i] = consumer.KubeconfigPath
				}
			}
			provBefore, consBefore := snapshot(t, ctx, p.prov), snapshot(t, ctx, cons)
			r := run(t, "", args...)
			assert.NotZero(t, r.code)
			assert.Empty(t, r.out, "nothing on stdout")
			errs := r.lines("ERRO")
			assert.Len(t, errs, 1, "one line says what is wrong")
			notInfo := 0
			for _, l := range strings.Split(strings.TrimRight(r.err, "\n"), "\n") {
				if !strings.HasPrefix(strings.TrimSpace(l), "INFO ") {
					notInfo++
				}
			}
			assert.LessOrEqual(t, notInfo, 2, "one line, plus at most one of remedy")
			if !c.dials {
				assert.LessOrEqual(t, strings.Count(r.err, "\n"), 2, "refused before anything is dialed: one line (+ remedy)")
			}
			if strings.Contains(c.name, "pinned") && len(errs) == 1 {
				assert.Contains(t, errs[0], "whose certificate is not the provider's: SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU expected")
			}
			assert.NotContains(t, r.all(), p.token, "no token echoed")
			assert.NotRegexp(t, `[0-9a-fA-F]{32}`, r.all(), "no token, nor any part of one, echoed")
			if c.name == "unreachable auth URL" {
				assert.NotContains(t, r.err, "API server", "the auth server is named as such, not glued to an API server line")
			}
			assert.Equal(t, provBefore, snapshot(t, ctx, p.prov), "nothing written on the provider")
			if c.name == "unreachable auth URL" && consumer == p.consumer {
				// Liqo tried and failed: what this run created is removed.
				assert.Contains(t, r.err, "Removed what this run created")
				assert.Contains(t, r.err, kliqo0x.RemoteTokenPrefix+providerID)
			}
			assert.Equal(t, consBefore, snapshot(t, ctx, cons), "nothing left on the consumer")
		})
	}
}
