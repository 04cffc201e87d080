package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// emptyConfig is the OCI 1.1 empty descriptor's content: an artifact
// manifest needs a config, and has none.
var emptyConfig = []byte("{}")

// referrer is an OCI 1.1 artifact manifest: one blob of artifactType,
// attached to subject (the registry's referrers API lists it under the
// subject's digest). go-containerregistry's mutate cannot set a manifest's
// artifactType, so the manifest is written here and the library does the
// rest (digests, descriptors, writing the layout).
type referrer struct {
	manifest []byte
	blob     v1.Layer
}

// newReferrer attaches blob, of media type artifactType, to subject.
func newReferrer(subject v1.Image, artifactType string, blob []byte, created time.Time) (v1.Image, error) {
	subjectDesc, err := partial.Descriptor(subject)
	if err != nil {
		return nil, err
	}
	subjectDesc.ArtifactType = "" // the subject's own, not part of a subject descriptor
	layer := static.NewLayer(blob, types.MediaType(artifactType))
	layerDesc, err := partial.Descriptor(layer)
	if err != nil {
		return nil, err
	}
	configDigest, configSize, err := v1.SHA256(bytes.NewReader(emptyConfig))
	if err != nil {
		return nil, err
	}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  artifactType,
		Config:        v1.Descriptor{MediaType: types.OCIEmptyJSON, Digest: configDigest, Size: configSize, Data: emptyConfig},
		Layers:        []v1.Descriptor{*layerDesc},
		Subject:       subjectDesc,
		// Clients order a subject's referrers by it.
		Annotations: map[string]string{"org.opencontainers.image.created": created.Format(time.RFC3339)},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return partial.CompressedToImage(&referrer{manifest: raw, blob: layer})
}

func (r *referrer) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
func (r *referrer) RawManifest() ([]byte, error)        { return r.manifest, nil }
func (r *referrer) RawConfigFile() ([]byte, error)      { return emptyConfig, nil }

func (r *referrer) LayerByDigest(h v1.Hash) (partial.CompressedLayer, error) {
	d, err := r.blob.Digest()
	if err != nil {
		return nil, err
	}
	if d != h {
		return nil, fmt.Errorf("referrer has no blob %s", h)
	}
	return r.blob, nil
}
