#!/usr/bin/env bash
# Run by `make demo` inside `liqo-auth-lab run --signing-duration 4m`: the
# two lab clusters are up and PROVIDER_KUBECONFIG / CONSUMER_KUBECONFIG
# point at them. It prepares both clusters, starts this project's
# controller against each (as the in-cluster Deployment would run), and
# opens the wizard against both; when the wizard ends, so does this script,
# and the lab stops. Certificates last 4 minutes here, so a renewal comes
# about a minute after the handshake.
set -euo pipefail
tool=bin/liqo-auth-tui
echo "demo: lab ready"
echo "  provider  $PROVIDER_KUBECONFIG"
echo "  consumer  $CONSUMER_KUBECONFIG"

for kc in "$PROVIDER_KUBECONFIG" "$CONSUMER_KUBECONFIG"; do
	"$tool" init --kubeconfig "$kc"
done

# The controllers keep the peering alive after the handshake (replication,
# resource slices, renewal). On the Node lab (DEMO_NODES=1, make demo as
# root) each cluster runs it as admins do: the Deployment `install
# controller` applies, from the image loaded into its Node; elsewhere as a
# process beside the lab.
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for side in provider consumer; do
	kc=PROVIDER_KUBECONFIG
	[[ $side == consumer ]] && kc=CONSUMER_KUBECONFIG
	if [[ ${DEMO_NODES:-} == 1 ]]; then
		"$tool" install controller --kubeconfig "${!kc}"
		echo "demo: liqo-auth-controller runs as Pods on the $side's Node"
		continue
	fi
	bin/liqo-auth-controller --kubeconfig "${!kc}" --health-address 127.0.0.1:0 --metrics-address 127.0.0.1:0 \
		>".lab/controller-$side.log" 2>&1 &
	pids+=($!)
	echo "demo: liqo-auth-controller serves the $side (log: .lab/controller-$side.log)"
done

if [[ ! -t 0 || ! -t 1 ]]; then
	# No terminal for the wizard: the same in batch mode, with a slice.
	echo "demo: not a terminal: running the handshake with --batch instead of the wizard"
	"$tool" --batch --kubeconfig "$CONSUMER_KUBECONFIG" --remote-kubeconfig "$PROVIDER_KUBECONFIG" \
		--resource-slice demo --cpu 2 --memory 4Gi --pods 20
	"$tool" get resourceslice --kubeconfig "$CONSUMER_KUBECONFIG"
	provider=$("$tool" info --kubeconfig "$PROVIDER_KUBECONFIG" -o json | sed -n 's/.*"clusterID": *"\([^"]*\)".*/\1/p' | head -1)
	echo "demo: waiting for the first renewal (certificates last 4 minutes in this lab)..."
	for _ in $(seq 1 40); do
		out=$("$tool" verify --kubeconfig "$CONSUMER_KUBECONFIG" --remote-cluster-id "$provider")
		if ! grep -q 'Last renewal: *never' <<<"$out"; then
			break
		fi
		sleep 5
	done
	echo "$out"
	echo "demo: done; stopping the lab"
	exit 0
fi

echo "demo: opening the wizard: enter to authenticate; on the summary, r requests resources"
echo "demo: and v verifies again: the certificate is renewed about a minute after the handshake"
code=0
"$tool" --kubeconfig "$CONSUMER_KUBECONFIG" --remote-kubeconfig "$PROVIDER_KUBECONFIG" || code=$?
case $code in
0) echo "demo: wizard finished; stopping the lab" ;;
130)
	echo "demo: wizard quit before the end; stopping the lab"
	code=0
	;;
*) echo "demo: the wizard failed (exit $code); stopping the lab" ;;
esac
exit "$code"
