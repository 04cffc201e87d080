#!/usr/bin/env bash
# Run by `make demo` inside `liqo-auth-lab run`: the two lab clusters are up
# and PROVIDER_KUBECONFIG / CONSUMER_KUBECONFIG point at them.
set -euo pipefail
tool=bin/liqo-auth-tui
for side in provider consumer; do
	kc_var=${side^^}_KUBECONFIG
	echo "== $side: liqo-auth-tui init --kubeconfig ${!kc_var}"
	"$tool" init --kubeconfig "${!kc_var}"
	echo "== $side: liqo-auth-tui info"
	"$tool" info --kubeconfig "${!kc_var}"
	echo
done
if [[ -t 0 && -t 1 ]]; then
	read -r -p "Press Enter to stop the lab..." _
fi
