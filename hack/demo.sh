#!/usr/bin/env bash
# Run by `make demo` inside `liqo-auth-lab run`: the two lab clusters are up
# and PROVIDER_KUBECONFIG / CONSUMER_KUBECONFIG point at them. It opens the
# wizard against both; when the wizard ends, so does this script, and the
# lab stops.
set -euo pipefail
tool=bin/liqo-auth-tui
echo "demo: lab ready"
echo "  provider  $PROVIDER_KUBECONFIG"
echo "  consumer  $CONSUMER_KUBECONFIG"

if [[ ! -t 0 || ! -t 1 ]]; then
	# No terminal for the wizard: the same handshake in batch mode.
	echo "demo: not a terminal: running the handshake with --batch instead of the wizard"
	for kc in "$PROVIDER_KUBECONFIG" "$CONSUMER_KUBECONFIG"; do
		"$tool" init --kubeconfig "$kc"
	done
	"$tool" --batch --kubeconfig "$CONSUMER_KUBECONFIG" --remote-kubeconfig "$PROVIDER_KUBECONFIG"
	echo "demo: done; stopping the lab"
	exit 0
fi

# The clusters are bare: the wizard's detect screen offers init (i).
echo "demo: opening the wizard: press i to prepare both clusters (init), then enter to authenticate"
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
