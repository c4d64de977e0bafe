#!/usr/bin/env bash
# The CLI's GPU contract: `gpus`, `estimate --gpu ...`, `compare`, and exit status 2 with the
# flag named for bad GPU input. Needs $DLCOST (the binary) and node for JSON checks.
set -u
pass=0
fail=0
check() {  # check NAME EXPECTED_RC COMMAND... ; keeps stdout in $out, stderr in $err
  local name=$1 want=$2
  shift 2
  out=$("$@" 2>/tmp/dlcost_gpu_err.$$)
  local rc=$?
  err=$(cat /tmp/dlcost_gpu_err.$$)
  if [ "$rc" -eq "$want" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, wanted $want; stderr: $err"
  fi
}
json_true() {  # json_true NAME JS_EXPRESSION_OVER_d  (d = parsed $out)
  if printf '%s' "$out" | node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8'));process.exit(($2)?0:1)"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $1: $2"
  fi
}
contains() {  # contains NAME TEXT HAYSTACK
  if printf '%s' "$3" | grep -q -- "$2"; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL $1: '$2' not in: $3"
  fi
}

check "gpus lists the table" 0 "$DLCOST" gpus --json
json_true "at least 30 GPUs" "d.length >= 30 && d.some(g => g.id === 'h100-sxm')"
check "gpus prints a table" 0 "$DLCOST" gpus
contains "table names the H100" "h100-sxm" "$out"
# Apple publishes no compute rate or TDP for the M3 Pro (gpu_presets.cpp cites apple.com):
# its rates print as "-" (not published), never as 0 (no fast path).
contains "unpublished rates print as -" "apple-m3-pro-36gb .* 150 GB/s  *-  *-  *-  *-" "$out"

check "estimate on a GPU" 0 "$DLCOST" estimate --preset alexnet --batch 64 --gpu a100-sxm4-80gb --json
json_true "report carries the fit fields" \
  "['gpu','fits','headroom_bytes','max_batch','step_time_s','tokens_per_s','per_gpu','advice'].every(k => k in d.gpu_fit) && d.gpu_fit.fits === true && d.gpu_fit.gpu.id === 'a100-sxm4-80gb' && !('fits' in d)"
check "multi-GPU flags" 0 "$DLCOST" estimate --preset alexnet --batch 64 --gpu h100-sxm --gpus 4 --zero 2 --utilization 0.4 --json
json_true "data parallel 4, ZeRO 2" "d.gpu_fit.parallel.data_parallel === 4 && d.gpu_fit.parallel.zero === 2 && d.gpu_fit.roofline.utilization === 0.4"
check "advice when it does not fit" 0 "$DLCOST" estimate --preset alexnet --batch 4096 --gpu rtx-3060-12gb --json
json_true "does not fit, with advice" "d.gpu_fit.fits === false && d.gpu_fit.advice.length > 0 && d.gpu_fit.advice.every(a => a.per_gpu_bytes <= a.usable_bytes)"

# dlcost sweep: per GPU under a layout, from the page's engine call. Issue 13's case: llama-2-7b,
# mixed, full recomputation, 8 H100s with ZeRO-3: max batch 384 fits, the next layout does not
# (408 before the logits' backward held both fp32 gradients, measured in docs/accuracy.md).
check "sweep per GPU" 0 "$DLCOST" sweep --preset llama-2-7b --dtype mixed --recompute full --gpu h100-sxm --gpus 8 --zero 3 --batch 8 --batches 8,64,384,392 --json
json_true "sweep fits agree with max_batch" \
  "d.per_gpu === true && d.max_batch === 384 && d.points.map(p => p.fits).join() === 'true,true,true,false'"
check "sweep over contexts as CSV" 0 "$DLCOST" sweep --preset gpt2 --contexts 512,1024 --batches 1,8 --memory-gib 24 --csv
contains "CSV header" "seq_len,batch,memory_bytes,fits" "$out"
check "sweep names a bad batch" 2 "$DLCOST" sweep --preset alexnet --batches 1,0
contains "names --batches" "--batches" "$err"

check "unknown GPU" 2 "$DLCOST" estimate --preset alexnet --gpu h100
contains "names the flag" "--gpu" "$err"
check "zero GPUs" 2 "$DLCOST" estimate --preset alexnet --gpu a10 --gpus 0
contains "names --gpus" "--gpus" "$err"
check "negative utilisation" 2 "$DLCOST" estimate --preset alexnet --gpu a10 --utilization -0.5
contains "names --utilization" "--utilization" "$err"
check "utilisation above 1" 2 "$DLCOST" estimate --preset alexnet --gpu a10 --utilization 1.5
check "tp not dividing gpus" 2 "$DLCOST" estimate --preset alexnet --gpu a10 --gpus 4 --tp 3
contains "names --tp" "--tp" "$err"
check "batch not splitting over replicas" 2 "$DLCOST" estimate --preset alexnet --gpu a10 --gpus 3 --batch 64
contains "names --batch" "--batch" "$err"
check "error JSON" 2 "$DLCOST" estimate --preset alexnet --gpu nope --json
json_true "error has code and path" "d.error.code === 'value' && d.error.path === '--gpu'"

check "compare over all GPUs" 0 "$DLCOST" compare --preset alexnet --batch 128 --dtype mixed --json
json_true "one row per preset, fitting rows by samples/s" \
  "d.rows.length >= 30 && d.rows.filter(r => r.fits).every((r, i, a) => i === 0 || a[i-1].samples_per_s >= r.samples_per_s)"
check "compare sorted by price/performance" 0 "$DLCOST" compare --preset alexnet --batch 128 --sort per_1000usd --json
json_true "priced rows first, best first" \
  "(() => { const p = d.rows.filter(r => r.fits && r.samples_per_s_per_1000usd !== null); return p.every((r, i) => i === 0 || p[i-1].samples_per_s_per_1000usd >= r.samples_per_s_per_1000usd); })()"
check "compare prints a table" 0 "$DLCOST" compare --preset alexnet --batch 128
contains "compare table has the 4090" "rtx-4090" "$out"
check "unknown sort field" 2 "$DLCOST" compare --preset alexnet --sort speed
contains "names --sort" "--sort" "$err"

rm -f /tmp/dlcost_gpu_err.$$
# Multi-GPU step, run cost and layouts (issue 18).
check "step breakdown and run" 0 "$DLCOST" estimate --preset llama-2-7b --batch 32 --dtype bf16 --gpu h100-sxm --gpus 16 --nodes 2 --tp 2 --tokens 1e12 --price 2.5 --json
json_true "step_time and run in gpu_fit" \
  "d.gpu_fit.step_time.parts.length === 8 && d.gpu_fit.run.steps > 0 && d.gpu_fit.run.price_source.kind === 'user' && d.gpu_fit.network.nodes === 2"
check "layouts ranks splits" 0 "$DLCOST" layouts --preset gpt2 --batch 16 --gpu a100-sxm4-80gb --gpus 8 --json
json_true "layouts rows and refused" "d.schema === 'dlcost.layouts/1' && d.rows.length + d.refused.length === 10"
check "layouts prints a table" 0 "$DLCOST" layouts --preset gpt2 --batch 16 --gpu a100-sxm4-80gb --gpus 8
# The memory timeline (issue #28): its peak named and equal to the report's total; CSV and a
# table; bad input exits 2 naming the flag.
check "timeline as JSON" 0 "$DLCOST" timeline --preset resnet18 --batch 8 --json
json_true "timeline peak is the report's total" \
  "d.schema === 'dlcost.timeline/1' && d.peak.total === d.memory_total && d.points.length > 100"
check "timeline as a table" 0 "$DLCOST" timeline --preset resnet18 --batch 8
contains "timeline names its peak" "^peak .* at the backward of " "$out"
check "timeline as CSV" 0 "$DLCOST" timeline --preset gpt2 --seq-len 256 --recompute full --csv
contains "timeline CSV header" "^index,phase,op,weights,gradients" "$out"
contains "recomputation is a forward re-run" ",recompute," "$out"
check "timeline of a bad batch" 2 "$DLCOST" timeline --preset resnet18 --batch 0
contains "timeline error names the flag" "--batch" "$err"
check "links lists links and prices" 0 "$DLCOST" links --json
json_true "links carry sources" "d.links.links.every(l => l.source) && d.prices.prices.every(p => p.date && p.source)"
check "tp not dividing heads" 2 "$DLCOST" estimate --preset gpt2 --gpu h100-sxm --gpus 5 --tp 5 --batch 5
contains "names --tp" "--tp" "$err"
check "pp above the layers" 2 "$DLCOST" estimate --preset gpt2 --gpu h100-sxm --gpus 16 --pp 16 --batch 16
contains "names --pp" "--pp" "$err"
check "zero price" 2 "$DLCOST" estimate --preset gpt2 --gpu h100-sxm --price 0
contains "names --price" "--price" "$err"
check "no split suits the model" 2 "$DLCOST" layouts --preset gpt2 --gpu h100-sxm --gpus 13 --gpus-per-node 13 --batch 4
contains "names --gpus" "--gpus" "$err"
# Expert parallelism and the interleaved schedule (issue 18, session 4).
MOE="$(dirname "$0")/../fixtures/hf-configs/qwen3-30b-a3b.json"
check "expert parallelism" 0 "$DLCOST" estimate "$MOE" --batch 8 --seq-len 4096 --dtype bf16 --gpu h100-sxm --gpus 8 --ep 8 --json
json_true "expert all-to-alls in the step" \
  "d.gpu_fit.step_time.ep_comm_s > 0 && d.gpu_fit.step_time.collectives.some(c => c.purpose === 'ep_tokens' && c.collective === 'all-to-all' && c.ranks === 8) && d.gpu_fit.parallel.ep === 8"
check "layouts split experts" 0 "$DLCOST" layouts "$MOE" --batch 8 --seq-len 4096 --dtype bf16 --gpu h100-sxm --gpus 8 --json
json_true "layouts rows with ep" "d.rows.some(r => r.ep === 8) && d.rows.every(r => r.dp % r.ep === 0)"
check "ep not dividing the experts" 2 "$DLCOST" estimate "$MOE" --gpu h100-sxm --gpus 6 --ep 3 --batch 6
contains "names --ep" "--ep" "$err"
check "ep on a dense model" 2 "$DLCOST" estimate --preset gpt2 --gpu h100-sxm --gpus 2 --ep 2 --batch 2
contains "names --ep (dense)" "--ep" "$err"
check "interleaving without pp" 2 "$DLCOST" estimate --preset gpt2 --gpu h100-sxm --gpus 2 --virtual-stages 2 --batch 2
contains "names --virtual-stages" "--virtual-stages" "$err"
check "interleaved pipeline" 0 "$DLCOST" estimate --preset gpt2 --gpu h100-sxm --gpus 4 --pp 4 --virtual-stages 3 --microbatches 8 --batch 8 --json
json_true "interleaved bubble" "Math.abs(d.gpu_fit.step_time.bubble_fraction - 1 / 9) < 1e-12 && d.gpu_fit.step_time.virtual_stages === 3"
# Context parallelism (issue 32 item 4): Llama 3.1 8B, 128k tokens, FSDP (ZeRO-3) x cp 4.
CP_ARGS=(--preset llama-3.1-8b --batch 2 --seq-len 131072 --dtype mixed --gpu-dtype bf16 --gpu h100-sxm --gpus 8 --zero 3 --recompute full --cp 4)
check "context parallelism" 0 "$DLCOST" estimate "${CP_ARGS[@]}" --json
json_true "cp ring in the step and memory" \
  "d.gpu_fit.parallel.cp === 4 && d.gpu_fit.parallel.data_parallel === 2 && d.gpu_fit.step_time.collectives.some(c => c.purpose === 'cp_kv' && c.group === 'context' && c.ranks === 4) && d.gpu_fit.per_gpu.terms.some(t => t.key === 'cp_ring_buffers' && t.bytes > 0)"
check "context parallelism (text)" 0 "$DLCOST" estimate "${CP_ARGS[@]}"
contains "cp in the layout line" "cp 4" "$out"
contains "cp ring in the step line" "cp ring (exposed)" "$out"
contains "cp ring buffers in memory" "CP ring K/V buffers" "$out"
check "cp without load balancing" 0 "$DLCOST" estimate "${CP_ARGS[@]}" --cp-load-balance none --json
json_true "cp_load_balance none" "d.gpu_fit.parallel.cp_load_balance === 'none'"
check "cp not dividing the GPUs" 2 "$DLCOST" estimate --preset llama-3.1-8b --gpu h100-sxm --gpus 8 --cp 3 --batch 3
contains "names --cp" "--cp" "$err"
check "links state NCCL's efficiency" 0 "$DLCOST" links --json
json_true "links carry bus efficiency" "d.links.links.every(l => l.bus_efficiency > 0 && l.bus_efficiency <= 1 && l.efficiency_source)"

# A CPU as the device: llama.cpp in system RAM less the OS's 4 GiB (docs/serving.md).
CPU_RUN=(estimate --preset llama-3.1-8b --mode infer --dtype fp16 --quant gguf --gguf-type Q4_K_M --context 4096 --gpu amd-epyc-9654)
check "llama.cpp on a CPU" 0 "$DLCOST" "${CPU_RUN[@]}" --engine llamacpp --system-ram-gib 64 --json
json_true "CPU plan in system RAM" "d.serving.on_cpu && d.serving.fits && d.serving.capacity_bytes === 64 * 2 ** 30 && d.serving.budget_bytes === 60 * 2 ** 30 && d.serving.command.includes('-ngl 0')"
check "CPU plan printed" 0 "$DLCOST" "${CPU_RUN[@]}" --engine llamacpp --system-ram-gib 64
contains "says system RAM" "in system RAM (CPU)" "$out"
check "system RAM of 0" 2 "$DLCOST" "${CPU_RUN[@]}" --engine llamacpp --system-ram-gib 0
contains "names --system-ram-gib" "--system-ram-gib" "$err"
check "vLLM on a CPU" 2 "$DLCOST" "${CPU_RUN[@]}" --engine vllm
contains "names --engine" "--engine" "$err"
# Issue #32: an engine or quant the device cannot run exits 2 naming the field.
check "vLLM on an Apple chip" 2 "$DLCOST" estimate --preset llama-3.1-8b --mode infer \
  --gpu apple-m2-max-96gb --engine vllm
contains "names the engine field" "--engine" "$err"
check "TensorRT-LLM on an Apple chip" 2 "$DLCOST" estimate --preset llama-3.1-8b --mode infer \
  --gpu apple-m2-max-96gb --engine trtllm
contains "names the engine field for trtllm" "--engine" "$err"
check "TensorRT-LLM on a CPU" 2 "$DLCOST" "${CPU_RUN[@]}" --engine trtllm
contains "names --engine for trtllm on a CPU" "--engine" "$err"
check "AWQ on a V100 in vLLM" 2 "$DLCOST" estimate --preset llama-3.1-8b --mode infer \
  --gpu v100-sxm2-32gb --engine vllm --quant awq
contains "names the quant field" "--quant" "$err"

# The engine under load (issue #30, docs/serving.md "Under load").
SIM=(serve-sim --preset llama-3-8b --engine vllm --gpu h100-sxm --context 4096)
check "serve-sim at a rate" 0 "$DLCOST" "${SIM[@]}" --rate 10 --requests 200 --prompt uniform:100-1000 --output normal:200,50 --json
json_true "serve-sim percentiles and timeline" "d.schema === 'dlcost.serve_sim/1' && d.result.requests === 200 && d.result.ttft_s.p99 >= d.result.ttft_s.p50 && d.result.timeline.time_s.length > 0"
check "serve-sim capacity" 0 "$DLCOST" "${SIM[@]}" --rate 10 --requests 200 --prompt 512 --output 128 --slo-ttft-ms 500
contains "prints the capacity" "capacity within the objectives" "$out"
check "serve-sim timeline CSV" 0 "$DLCOST" "${SIM[@]}" --concurrency 4 --requests 20 --prompt 100 --output 64
contains "CSV header" "time_s,running,waiting,kv_used" "$("$DLCOST" "${SIM[@]}" --concurrency 4 --requests 20 --prompt 100 --output 64 --csv)"
check "serve-sim bad rate" 2 "$DLCOST" "${SIM[@]}" --rate -1
contains "names --rate" "--rate" "$err"
printf '0,10,5\n1,-4,5\n' >/tmp/dlcost_trace.$$.csv
check "serve-sim bad trace row" 2 "$DLCOST" "${SIM[@]}" --trace /tmp/dlcost_trace.$$.csv
contains "names the trace row" "row 2" "$err"
rm -f /tmp/dlcost_trace.$$.csv
check "serve-sim without an engine" 2 "$DLCOST" serve-sim --preset resnet50 --gpu h100-sxm --rate 1
contains "names --engine" "engine" "$err"

echo "cli gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
