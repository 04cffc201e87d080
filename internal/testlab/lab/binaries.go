package lab

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Versions of the self-built control plane; hack/install-kube-binaries.sh
// builds exactly these into the same cache folder.
const (
	KubeVersion = "v1.37.1"
	EtcdVersion = "v3.7.0"
)

// BinariesEnv overrides where the control-plane binaries are looked up.
const BinariesEnv = "LIQO_AUTH_KUBE_BINARIES"

// InstallHint is the command that builds the binaries when they are missing.
const InstallHint = "make kube-binaries"

// BinaryDir returns the folder with kube-apiserver, kube-controller-manager
// and etcd, or an error that says how to build them.
func BinaryDir() (string, error) {
	dir := os.Getenv(BinariesEnv)
	if dir == "" {
		root, err := cacheRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, fmt.Sprintf("kube-%s-etcd-%s", KubeVersion, EtcdVersion))
	}
	if err := present(dir, "control-plane binary", InstallHint, "kube-apiserver", "kube-controller-manager", "etcd"); err != nil {
		return "", err
	}
	return dir, nil
}

// present checks that dir holds every name, else says which one is
// missing (what, e.g. "Node binary") and the command that builds them.
func present(dir, what, hint string, names ...string) error {
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, name)); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s %s not found in %s: build them with `%s`", what, name, dir, hint)
		} else if err != nil {
			return fmt.Errorf("%s %s: %w", what, name, err)
		}
	}
	return nil
}

// cacheRoot is the per-user folder the install scripts build into.
func cacheRoot() (string, error) {
	if root := os.Getenv("LIQO_AUTH_CACHE"); root != "" {
		return root, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating the lab's binaries: %w", err)
	}
	return filepath.Join(cache, "liqo-auth-tui"), nil
}
