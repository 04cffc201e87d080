package v1beta1

// AuthParams contains the parameters needed to build a kubeconfig to access
// the provider cluster: it is written by the provider in Tenant,
// ResourceSlice and Renew statuses and copied by the consumer into
// Identity.spec.authParams.
type AuthParams struct {
	// CA is the PEM-encoded CA bundle of the provider API server (may be empty).
	CA []byte `json:"ca,omitempty"`
	// SignedCRT is the PEM-encoded client certificate issued by the provider.
	SignedCRT []byte `json:"signedCRT,omitempty"`
	// APIServer is the URL of the provider API server.
	APIServer string `json:"apiServer,omitempty"`
	// ProxyURL is the URL of the proxy used to reach the provider API server.
	ProxyURL string `json:"proxyURL,omitempty"`
	// AWSConfig contains the AWS configuration and access key for the Liqo user and the current EKS cluster.
	AWSConfig *AWSConfig `json:"awsConfig,omitempty"`
}

// AWSConfig contains the AWS configuration and access key for the Liqo user
// and the current EKS cluster (only on EKS/IAM providers).
type AWSConfig struct {
	// AWSUserArn is the ARN of the IAM user of the consumer.
	AWSUserArn string `json:"awsUserArn"`
	// AWSAccessKeyID is the access key ID of the IAM user.
	AWSAccessKeyID string `json:"awsAccessKeyID"`
	// AWSSecretAccessKey is the secret access key of the IAM user.
	AWSSecretAccessKey string `json:"awsSecretAccessKey"`
	// AWSRegion is the region of the EKS cluster.
	AWSRegion string `json:"awsRegion"`
	// AWSClusterName is the name of the EKS cluster.
	AWSClusterName string `json:"awsClusterName"`
}

// ClusterIDPattern is the validation pattern of cluster IDs (a DNS-1123 label).
const ClusterIDPattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
