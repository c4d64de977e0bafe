#!/usr/bin/env bash
# The CLI's contract for `dlcost timeline --measured` (#28 item 3): a PyTorch CUDA memory
# snapshot beside the predicted timeline, both peaks and their difference; a bad snapshot
# exits 2 naming the flag, the file and the byte or field. The snapshots are the fixtures of
# tests/measured/make_snapshots.py: WRITTEN FROM THE FORMAT, NOT RECORDED on a GPU.
set -u
: "${DLCOST:?set DLCOST to the dlcost binary}"
here="$(cd "$(dirname "$0")" && pwd)"
snapshots="$here/../fixtures/memory-snapshots"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=check_output.sh
source "$here/check_output.sh"

run="timeline --preset resnet18 --batch 8"
# train_step.pickle: active peak 27 MiB - 512 = 28,311,040 bytes (make_snapshots.py).
# shellcheck disable=SC2086
check "measured peak in the JSON" 0 '"measured_peak_bytes": 28311040' \
  "$DLCOST" $run --measured "$snapshots/train_step.pickle" --json
# shellcheck disable=SC2086
check "predicted and measured side by side" 0 '"predicted_peak_bytes"' \
  "$DLCOST" $run --measured "$snapshots/train_step.pickle" --json
# shellcheck disable=SC2086
check "not modelled named" 0 '"id": "allocator_cache"' \
  "$DLCOST" $run --measured "$snapshots/train_step.pickle" --json
# shellcheck disable=SC2086
check "text prints both peaks" 0 'measured - predicted = ' \
  "$DLCOST" $run --measured "$snapshots/train_step.pickle"
# shellcheck disable=SC2086
check "text names the measured peak" 0 'active peak 27.00 MiB at trace event 6' \
  "$DLCOST" $run --measured "$snapshots/train_step.pickle"
# shellcheck disable=SC2086
# point 5 is trace event 6: points 1-4 are events 1, 2, 3 and 5 (event 4 is a free_requested)
check "measured curve as CSV" 0 '5,6,1050,28311040' \
  "$DLCOST" $run --measured "$snapshots/train_step.pickle" --csv
# shellcheck disable=SC2086
check "a missing snapshot" 2 'cannot read file' "$DLCOST" $run --measured "$tmp/none.pickle"
printf '\x80\x04\x63posix\nsystem\n.' >"$tmp/global.pickle"
# shellcheck disable=SC2086
check "GLOBAL refused with its byte" 2 'pickle byte 2, opcode 0x63 (GLOBAL)' \
  "$DLCOST" $run --measured "$tmp/global.pickle"
head -c 700 "$snapshots/train_step.pickle" >"$tmp/cut.pickle"
# shellcheck disable=SC2086
check "truncated snapshot" 2 'truncated' "$DLCOST" $run --measured "$tmp/cut.pickle"
# shellcheck disable=SC2086
check "a bad field named by its path" 2 "error at --measured $snapshots/negative_size.pickle /device_traces/0/0/size" \
  "$DLCOST" $run --measured "$snapshots/negative_size.pickle"

echo "cli measured: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
