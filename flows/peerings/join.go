package peerings

import "github.com/liqo-auth-tui/liqo-auth-tui/flows/handshake"

// join pairs this cluster's rows about the remote with the remote's rows
// about this cluster (same generation, opposite role) and keeps only
// those: the others are peerings of one side with third clusters. A side
// with no row for the pair gets one with nothing in it, so that the
// health says the peering is one-sided. Without both cluster IDs there is
// nothing to join on: the local rows stay as they are.
func join(local []handshake.Peering, localID string, remote []handshake.Peering, remoteID string) []handshake.Peering {
	if localID == "" || remoteID == "" {
		return local
	}
	type key struct {
		role       handshake.Role
		generation string
	}
	theirs := map[key]*handshake.Peering{}
	for i := range remote {
		if r := &remote[i]; r.RemoteID == localID {
			theirs[key{r.Role.Other(), r.Generation}] = r
		}
	}
	var out []handshake.Peering
	for _, r := range local {
		if r.RemoteID != remoteID {
			continue
		}
		k := key{r.Role, r.Generation}
		other := theirs[k]
		delete(theirs, k)
		if other == nil {
			other = &handshake.Peering{RemoteID: localID, Role: r.Role.Other(), Generation: r.Generation}
		}
		r.Remote = other
		out = append(out, r)
	}
	// The remote's rows about this cluster that this cluster has nothing for.
	for k, other := range theirs {
		out = append(out, handshake.Peering{RemoteID: remoteID, Role: k.role, Generation: k.generation, Remote: other})
	}
	sortRows(out)
	return out
}
