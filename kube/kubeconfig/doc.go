// Package kubeconfig reads kubeconfigs as kubectl does, without building
// clients or contacting a server: the part of connecting to a cluster that
// parses outside input. It imports client-go's clientcmd but none of the
// typed clientsets, so that its fuzz targets build into a small test
// binary and run fast.
package kubeconfig
