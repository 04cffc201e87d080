package flows

// Stub of the helper on branch doctor-peering (flows/doctor_reauth.go),
// so that this branch compiles: the lead deletes this file at merge.
func reauthenticateRepair(d *doctorRun, row PeeringRow) *Repair {
	return &Repair{Plan: []string{"re-authenticate " + row.RemoteID + " keeping its ResourceSlices (stub)"}}
}
