package kube

import apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// InitCRDs are the CustomResourceDefinitions `init` installs, decoded from
// the embedded manifests: the authentication.liqo.io kinds and Liqo's
// NamespaceMap. Liqo v1 ships the same five.
func InitCRDs() ([]*apiextv1.CustomResourceDefinition, error) {
	crds, _, err := embeddedManifests()
	return crds, err
}

// CRDEstablished tells whether the API server serves crd's kind.
func CRDEstablished(crd *apiextv1.CustomResourceDefinition) bool {
	for _, cond := range crd.Status.Conditions {
		if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
			return true
		}
	}
	return false
}
