#include "options.hpp"

namespace dlcost::cli {

namespace {

/// Workload flags and the workload field each sets.
const std::map<std::string, std::string>& workloadFlags() {
  static const std::map<std::string, std::string> kFlags = {
      {"--batch", "batch"},
      {"--dtype", "dtype"},
      {"--optimizer", "optimizer"},
      {"--mode", "mode"},
      {"--memory-gib", "memory_gib"},
      {"--overhead-bytes", "overhead_bytes"},
      {"--gpu", "gpu"},
      {"--gpus", "gpus"},
      {"--zero", "zero"},
      {"--tp", "tp"},
      {"--pp", "pp"},
      {"--microbatches", "microbatches"},
      {"--utilization", "utilization"},
      {"--reserve-bytes", "reserve_bytes"},
      {"--fragmentation", "fragmentation"},
      {"--gpu-dtype", "gpu_dtype"},
      {"--grad-accum", "grad_accum"},
      {"--seq-len", "seq_len"},
      {"--prompt-tokens", "prompt_tokens"},
      {"--generated-tokens", "generated_tokens"},
      {"--weight-dtype", "weight_dtype"},
      {"--quant-group-size", "quant_group_size"},
      {"--kv-dtype", "kv_dtype"},
      {"--attention", "attention"},
      {"--recompute", "recompute"},
      {"--finetune", "finetune"},
      {"--lora-rank", "lora_rank"},
      {"--lora-alpha", "lora_alpha"},
      {"--lora-targets", "lora_targets"},
  };
  return kFlags;
}

}  // namespace

const char* usageText() {
  return R"(dlcost - what a deep-learning model costs: parameters, MACs/FLOPs, memory

usage:
  dlcost estimate MODEL.json [options]     estimate a model described in JSON
  dlcost estimate --preset NAME [options]  estimate a built-in preset
  dlcost estimate --hf ORG/NAME [options]  estimate a Hub model's config.json from the local
                                           Hugging Face cache (HF_HUB_CACHE, HF_HOME; offline)
  dlcost estimate --gguf FILE [options]    estimate the architecture a GGUF file stands for
                                           (its config.json: `inspect --config`), and print
                                           the file's exact weight bytes beside the estimate
  dlcost inspect FILE [--json] [--tensors] [--config]
                                           parameters and exact bytes by type of a .gguf,
                                           .safetensors or model.safetensors.index.json,
                                           from its header only
  dlcost link MODEL.json|--preset NAME [options] [--lang en|zh]
                                           print a share-link fragment (#d1....) for the page
  dlcost link --decode FRAGMENT            print the state a share link carries
  dlcost estimate --link FRAGMENT [options]  estimate what a share link shows
  dlcost compare MODEL.json|--preset NAME [options] [--sort FIELD]
                                           the workload on every GPU preset
  dlcost gpus                              list the GPU presets
  dlcost presets                           list the built-in presets
  dlcost preset NAME                       print a preset's model JSON
  dlcost --help | --version

options (each overrides the document's "workload"):
  --batch N                 samples per step (default 1)
  --dtype fp32|fp16|bf16|mixed
                            mixed: 16-bit weights/activations, fp32 master weights and states
  --optimizer sgd|momentum|adam|adamw|rmsprop|adagrad|adam8bit   (default adam)
  --mode train|infer        (default train)
  --memory-gib X            memory available: report the largest batch that fits
  --overhead-bytes N        fixed overhead added to the total (framework, CUDA context)
  --gpu NAME                run on this GPU (`dlcost gpus` lists them): fit, largest batch,
                            roofline step time, price/performance, advice when it does not fit
  --gpus N                  GPUs in all (data parallel x tp x pp); batch is the global batch
  --zero 0|1|2|3            ZeRO stage over the data-parallel GPUs (1 states, 2 +gradients,
                            3 +weights)
  --tp T  --pp P            tensor- and pipeline-parallel degrees; --sp adds sequence parallel
  --microbatches M          pipeline micro-batches per step (default pp)
  --utilization U           achievable fraction of the dense peak, [0.01, 1] (default 0.5)
  --reserve-bytes N         per-GPU reserve (default 1 GiB, +1 GiB NCCL with several GPUs)
  --fragmentation F         allocator fragmentation share, [0, 0.5) (default 0.05)
  --gpu-dtype fp32|tf32|fp16|bf16|fp8|int8   matmul arithmetic (default from --dtype)
  --sort FIELD              compare: name, year, memory, fits, max_batch, step_time,
                            samples_per_s (default), tokens_per_s, per_1000usd, per_watt

transformer options (a Hugging Face config.json as MODEL.json, or an hf/ preset):
  --grad-accum N            micro-batches per optimizer step (default 1): memory is one
                            micro-batch's, MACs/FLOPs the whole step's
  --seq-len N               training tokens per sequence (default min(2048, context))
  --prompt-tokens N         inference prompt length (default: as --seq-len)
  --generated-tokens N      inference tokens generated after the prompt (default 0)
  --weight-dtype fp32|fp16|bf16|fp8|int8|int4
                            weight storage (default: the --dtype's); int8/int4 add one
                            fp16 scale per group of block linear weights
  --quant-group-size N      weights per quantization group (default 128)
  --kv-dtype fp32|fp16|bf16|fp8|int8|int4   KV cache storage (default: activations')
  --attention eager|flash   eager keeps the s x s scores; flash does not (default flash)
  --recompute none|selective|full   activation recomputation (default none)
  --finetune none|full|lora|qlora   what training updates (default none: from scratch);
                            qlora stores the base in int4 unless --weight-dtype says
  --lora-rank R             LoRA rank (default 8)
  --lora-alpha A            LoRA alpha (default 8; changes no cost)
  --lora-targets LIST       modules with adapters, comma-separated: the model's own names
                            (c_attn, query_key_value, w1, ...), the logical q_proj,k_proj,
                            v_proj,o_proj,gate_proj,up_proj,down_proj, or all-linear
                            (default q_proj,v_proj)
  --units binary|decimal    human output in GiB (2^30 B) or GB (10^9 B); default binary
  --json                    print the report as JSON (exact bytes and counts)
  --explain                 also show how every figure was computed and what dominates it
                            (with --json: adds "explanations" and "dominant")
  --lang en|zh              language of --explain (and of share links made by `link`)

exit status: 0 success, 2 bad input or usage (the message names the field), 1 internal error
)";
}

Options parseOptions(int argc, const char* const* argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) throw UsageError{"no command given (try dlcost --help)"};
  size_t i = 0;
  o.command = args[i++];
  if (o.command == "--help" || o.command == "-h" || o.command == "help") {
    o.command = "help";
    return o;
  }
  if (o.command == "--version") {
    o.command = "version";
    return o;
  }
  if (o.command != "estimate" && o.command != "presets" && o.command != "preset" &&
      o.command != "link" && o.command != "compare" && o.command != "gpus") {
    throw UsageError{"unknown command '" + o.command + "' (try dlcost --help)"};
  }
  auto value = [&](const std::string& flag) -> std::string {
    if (i >= args.size()) throw UsageError{flag + " needs a value"};
    return args[i++];
  };
  while (i < args.size()) {
    const std::string a = args[i++];
    if (a == "--json") {
      o.json = true;
    } else if (a == "--sp") {
      o.workload["sp"] = "true";
    } else if (a == "--sort") {
      o.sort = value(a);
    } else if (a == "--preset") {
      o.preset = value(a);
    } else if (a == "--hf") {
      o.hf = value(a);
    } else if (a == "--gguf") {
      o.gguf = value(a);
    } else if (a == "--link") {
      o.link = value(a);
    } else if (a == "--decode") {
      o.decode = true;
    } else if (a == "--explain") {
      o.explain = true;
    } else if (a == "--lang") {
      o.lang = value(a);
      if (*o.lang != "en" && *o.lang != "zh") throw UsageError{"--lang must be en or zh"};
    } else if (a == "--units") {
      const std::string u = value(a);
      auto parsed = parseByteUnits(u);
      if (!parsed) throw UsageError{"--units must be binary or decimal, not '" + u + "'"};
      o.units = *parsed;
      o.units_given = true;
    } else if (auto it = workloadFlags().find(a); it != workloadFlags().end()) {
      o.workload[it->second] = value(a);
    } else if (a.rfind("--", 0) == 0) {
      throw UsageError{"unknown option '" + a + "' (try dlcost --help)"};
    } else {
      o.positional.push_back(a);
    }
  }
  return o;
}

}  // namespace dlcost::cli
