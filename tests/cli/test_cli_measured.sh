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
# two_devices.pickle: device 1 has the trace (the default); device 0 one segment, 2 MiB active.
# shellcheck disable=SC2086
check "--device 0 reads that device's curve" 0 '0,-1,-1,2097152' \
  "$DLCOST" $run --measured "$snapshots/two_devices.pickle" --device 0 --csv
# shellcheck disable=SC2086
check "--device picks the device in the JSON" 0 '"device": 0,' \
  "$DLCOST" $run --measured "$snapshots/two_devices.pickle" --device 0 --json
# shellcheck disable=SC2086
check "a device the snapshot lacks" 2 'device 3 has neither segments nor trace events' \
  "$DLCOST" $run --measured "$snapshots/two_devices.pickle" --device 3
# shellcheck disable=SC2086
check "--device not a number" 2 "--device must be a device index 0 to 1048576, not 'gpu1'" \
  "$DLCOST" $run --measured "$snapshots/two_devices.pickle" --device gpu1
# shellcheck disable=SC2086
check "--device negative" 2 "--device must be a device index" \
  "$DLCOST" $run --measured "$snapshots/two_devices.pickle" --device -1
# shellcheck disable=SC2086
check "--device without a value" 2 "--device needs a value" \
  "$DLCOST" $run --measured "$snapshots/two_devices.pickle" --device
# shellcheck disable=SC2086
check "--device without --measured" 2 "--device goes with --measured" "$DLCOST" $run --device 0
truncate -s 300M "$tmp/huge.pickle"
# shellcheck disable=SC2086
check "a file past the limit refused before it is read" 2 \
  "error at --measured $tmp/huge.pickle: memory snapshot: the file is 314572800 bytes; dlcost reads snapshots of at most 256 MiB" \
  "$DLCOST" $run --measured "$tmp/huge.pickle"

echo "cli measured: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
