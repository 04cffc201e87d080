package handshake

// Failure is a failure as the admin reads it: one line, what to do, and
// the error it explains. flows.Explain makes it, for the commands and the
// wizard alike.
type Failure struct {
	Reason string
	Hint   string
	Scope  Scope
	// Timeout: a wait or a request ran out of time.
	Timeout bool
	// AlreadyIssued: a Liqo 0.x provider already issued this consumer's
	// one identity; reissuing it (with the provider's kubeconfig) helps.
	AlreadyIssued bool
	// Err is the error explained.
	Err error
}

func (f *Failure) Error() string { return f.Reason }
func (f *Failure) Unwrap() error { return f.Err }

// About is f told about one of the two clusters: scoped, its line
// prefixed with "(local) " or "(remote) ".
func (f *Failure) About(s Scope) *Failure {
	about := *f
	about.Scope, about.Reason = s, s.Prefix()+f.Reason
	return &about
}
