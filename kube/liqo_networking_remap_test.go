package kube_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/liqo-auth-tui/liqo-auth-tui/kube"
)

// remapped is a Configuration whose remote CIDRs Liqo remapped, as Liqo
// v1.0 and v1.1 leave it (no condition).
func remapped(pod, podTo, ext, extTo string) *kube.NetworkConfiguration {
	return &kube.NetworkConfiguration{Generation: 1,
		Remote:   kube.NetworkCIDRs{Pod: []string{pod}, External: []string{ext}},
		Remapped: &kube.NetworkCIDRs{Pod: []string{podTo}, External: []string{extTo}}}
}

// The arithmetic of Liqo's MapAddressWithConfiguration and RemapMask, on
// the examples of RemapMask's comment and on the in-band proxy's case.
func TestRemapAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf *kube.NetworkConfiguration
		addr string
		want string
	}{
		{"external CIDR remapped (the in-band proxy)", remapped("10.200.0.0/16", "10.71.0.0/16", "10.70.0.0/16", "10.81.0.0/16"), "10.70.0.5", "10.81.0.5"},
		{"pod CIDR first", remapped("10.1.0.0/16", "40.32.0.0/10", "10.70.0.0/16", "10.81.0.0/16"), "10.1.0.1", "40.1.0.1"},
		{"Liqo's second example", remapped("10.255.0.0/16", "78.5.78.143/18", "10.70.0.0/16", "10.81.0.0/16"), "10.255.1.1", "78.5.65.1"},
		{"same CIDR: unchanged", remapped("10.200.0.0/16", "10.71.0.0/16", "10.70.0.0/16", "10.70.0.0/16"), "10.70.0.5", "10.70.0.5"},
		{"in no CIDR: unchanged", remapped("10.200.0.0/16", "10.71.0.0/16", "10.70.0.0/16", "10.81.0.0/16"), "192.168.1.7", "192.168.1.7"},
		{"IPv6", remapped("fd00:1::/64", "fd00:2::/64", "fd00:70::/48", "fd00:81:1::/48"), "fd00:70::5", "fd00:81:1::5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kube.RemapAddress(tc.conf, tc.addr)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.True(t, kube.InRemappedCIDRs(tc.conf, got) || got == tc.addr, "the remapped address lies in the remapped CIDRs")
		})
	}
}

// Liqo v1.2 marks a Configuration remapped with NetworkCIDRsConfigured,
// for its generation; before that, or without status, there is nothing to
// remap with.
func TestRemapAddressNeedsRemappedCIDRs(t *testing.T) {
	conf := remapped("10.200.0.0/16", "10.71.0.0/16", "10.70.0.0/16", "10.81.0.0/16")
	conf.Generation = 2
	cond := metav1.Condition{Type: kube.NetworkCIDRsConfigured, Status: metav1.ConditionTrue, ObservedGeneration: 1}
	conf.Conditions = []metav1.Condition{cond}
	_, err := kube.RemapAddress(conf, "10.70.0.5")
	require.ErrorContains(t, err, "not remapped yet", "the condition is of an older generation")
	conf.Conditions[0].ObservedGeneration = 2
	got, err := kube.RemapAddress(conf, "10.70.0.5")
	require.NoError(t, err)
	assert.Equal(t, "10.81.0.5", got)

	bare := &kube.NetworkConfiguration{Remote: kube.NetworkCIDRs{External: []string{"10.70.0.0/16"}}}
	_, err = kube.RemapAddress(bare, "10.70.0.5")
	require.ErrorContains(t, err, "not remapped yet")
	assert.False(t, kube.InRemappedCIDRs(bare, "10.70.0.5"))
	_, err = kube.RemapAddress(conf, "proxy.example")
	assert.ErrorContains(t, err, "invalid IP")
}
