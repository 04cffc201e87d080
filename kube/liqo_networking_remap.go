package kube

import (
	"errors"
	"fmt"
	"net/netip"
)

// RemapAddress is the address by which the local cluster of n reaches addr,
// an address of the remote cluster, as Liqo's MapAddressWithConfiguration
// computes it: within a remote pod CIDR, then within a remote external
// CIDR, the host part is kept and the network part becomes the remapped
// CIDR's (the same CIDR: addr unchanged); in neither, addr unchanged.
// Before Liqo remapped the CIDRs (Ready) it is an error. Liqo before v1.2
// looks at the primary CIDRs only: the same for the single CIDRs it sets.
func RemapAddress(n *NetworkConfiguration, addr string) (string, error) {
	if n == nil || !n.Ready() || n.Remapped == nil {
		return "", errors.New("its CIDRs are not remapped yet")
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return "", fmt.Errorf("invalid IP %q", addr)
	}
	ip = ip.Unmap()
	for _, set := range []struct {
		what           string
		spec, remapped []string
	}{{"pod", n.Remote.Pod, n.Remapped.Pod}, {"external", n.Remote.External, n.Remapped.External}} {
		for i, s := range set.spec {
			spec, err := netip.ParsePrefix(s)
			if err != nil {
				return "", fmt.Errorf("remote %s CIDR %q: %w", set.what, s, err)
			}
			if !spec.Contains(ip) {
				continue
			}
			if i >= len(set.remapped) {
				return "", fmt.Errorf("remote %s CIDR %s has no remapped CIDR", set.what, s)
			}
			if set.remapped[i] == s {
				return addr, nil
			}
			to, err := netip.ParsePrefix(set.remapped[i])
			if err != nil {
				return "", fmt.Errorf("remapped %s CIDR %q: %w", set.what, set.remapped[i], err)
			}
			out, err := remapMask(ip, to)
			if err != nil {
				return "", err
			}
			return out.String(), nil
		}
	}
	return addr, nil
}

// remapMask keeps the host part of addr and takes the network part of to
// (Liqo's RemapMask): 10.1.0.1 into 40.32.0.0/10 is 40.1.0.1.
func remapMask(addr netip.Addr, to netip.Prefix) (netip.Addr, error) {
	if addr.Is4() != to.Addr().Is4() {
		return netip.Addr{}, fmt.Errorf("%s and %s are not of the same IP family", addr, to)
	}
	a, n := addr.AsSlice(), to.Masked().Addr().AsSlice()
	bits := to.Bits()
	for i := range a {
		// The mask's byte i: all ones up to bits, then zeroes.
		ones := min(max(bits-8*i, 0), 8)
		mask := byte(0xff << (8 - ones))
		a[i] = n[i]&mask | a[i]&^mask
	}
	out, _ := netip.AddrFromSlice(a)
	return out, nil
}

// InRemappedCIDRs tells whether addr lies in one of the remapped CIDRs of
// n: an address by which the local cluster reaches the remote one across
// Liqo's network fabric (the remote pods, or its external CIDR: an in-band
// proxy's address).
func InRemappedCIDRs(n *NetworkConfiguration, addr string) bool {
	ip, err := netip.ParseAddr(addr)
	if n == nil || n.Remapped == nil || err != nil {
		return false
	}
	for _, s := range append(append([]string{}, n.Remapped.Pod...), n.Remapped.External...) {
		if p, err := netip.ParsePrefix(s); err == nil && p.Contains(ip.Unmap()) {
			return true
		}
	}
	return false
}
