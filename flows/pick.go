package flows

// Small pickers doctor shares with the read model of peerings
// (flows/peerings has its own: it may not import this package).

// firstOf keeps the first object seen (Liqo refuses to pick among
// duplicates; doctor checks one).
func firstOf[T any](slot **T, v *T) {
	if *slot == nil {
		*slot = v
	}
}

func orElse(s, other string) string {
	if s != "" {
		return s
	}
	return other
}
