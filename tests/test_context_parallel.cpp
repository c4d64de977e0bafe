// Context parallelism (cp): each training sequence split over cp GPUs, attention run as a
// ring passing K/V blocks. The table is a 131,072-token Llama 3.1 8B training step on 8
// H100s, torchtitan's long-context setup (FSDP over dp_shard x cp, i.e. ZeRO-3 over all 8
// GPUs; full activation checkpointing; flash attention; one sequence per data-parallel rank).
#include <catch2/catch.hpp>

#include <string>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/explore/layouts.hpp"
#include "document_error.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dlcost::testing::errorOf;
using nlohmann::json;

namespace {

constexpr int64_t kSeq = 131072;
// Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json): 32 layers, 32 query heads and 8
// key/value heads of 128, hidden 4096.
constexpr int64_t kLayers = 32;
constexpr int64_t kQ = 32 * 128;
constexpr int64_t kKv = 8 * 128;

json llama8b(json workload) {
  return {{"model", {{"preset", "llama-3.1-8b"}}}, {"workload", std::move(workload)}};
}

/// batch 8 / cp: one sequence per batch replica (gpus / cp of them), as torchtitan's
/// local_batch_size 1.
json workload(int64_t cp) {
  return {{"batch", 8 / cp},     {"seq_len", kSeq},     {"dtype", "mixed"},
          {"gpu_dtype", "bf16"}, {"gpu", "h100-sxm"},   {"gpus", 8},
          {"zero", 3},           {"recompute", "full"}, {"cp", cp}};
}

json fitOf(int64_t cp) {
  return dlcost::estimateDocument(llama8b(workload(cp)))["gpu_fit"];
}

int64_t termBytes(const json& memory, const std::string& key) {
  for (const json& t : memory["terms"])
    if (t["key"] == key) return t["bytes"].get<int64_t>();
  return 0;
}

const json* collective(const json& step, const std::string& purpose) {
  for (const json& c : step["collectives"])
    if (c["purpose"] == purpose) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("context parallelism: Llama 3.1 8B, 128k tokens, cp 1/2/4/8 on 8 GPUs",
          "[multigpu][context]") {
  const json one = fitOf(1);
  const double act1 = static_cast<double>(termBytes(one["per_gpu"], "activations"));
  const double compute1 = one["step_time"]["compute_s"].get<double>();
  REQUIRE(act1 > 0);
  CHECK(termBytes(one["per_gpu"], "cp_ring_buffers") == 0);
  CHECK(collective(one["step_time"], "cp_kv") == nullptr);

  const int64_t cp = GENERATE(2, 4, 8);
  CAPTURE(cp);
  const json f = fitOf(cp);
  const json& s = f["step_time"];
  const double c = static_cast<double>(cp);

  SECTION("layout: gpus / cp batch replicas; ZeRO and the gradients over all 8 GPUs") {
    CHECK(f["parallel"]["cp"] == cp);
    CHECK(f["parallel"]["data_parallel"] == 8 / cp);
    CHECK(f["parallel"]["replica_batch"] == 1);
    // torchtitan shards FSDP over dp_shard x cp: parameters per GPU as without cp.
    CHECK(termBytes(f["per_gpu"], "weights") == termBytes(one["per_gpu"], "weights"));
    const json* rs = collective(s, "zero_gradients");
    REQUIRE(rs != nullptr);
    CHECK((*rs)["ranks"] == 8);
  }
  SECTION("memory: each GPU keeps seq / cp tokens of every saved activation") {
    // One sequence per replica either way: the cp = 1 GPU's activations over cp, rounded up.
    CHECK_THAT(static_cast<double>(termBytes(f["per_gpu"], "activations")),
               WithinAbs(act1 / c, 1.0));
    // The ring's buffers (fit.hpp cpRingBuffersPerSample): the all-gathered K and V of the
    // whole sequence in bf16, s x 2 x 1024 x 2; the fp32 dQ/dK/dV accumulators of the local
    // chunk, s / cp x (4096 + 2 x 1024) x 4; one dK/dV block sent and one received,
    // 2 x s / cp x 2 x 1024 x 4. cp 4: 512 MiB + 768 MiB + 512 MiB = 1.75 GiB.
    const int64_t ring =
        kSeq * 2 * kKv * 2 + kSeq / cp * (kQ + 2 * kKv) * 4 + 2 * (kSeq / cp) * 2 * kKv * 4;
    CHECK(termBytes(f["per_gpu"], "cp_ring_buffers") == ring);
    if (cp == 4) CHECK(ring == int64_t{1879048192});
  }
  SECTION("time: compute per GPU ~1/cp, the ring's sends named in the breakdown") {
    // Tokens per GPU fall cp-fold and load balancing gives every GPU the same causal
    // attention work; within 5 % (the GEMMs' efficiency with fewer rows, kernel launches).
    CHECK_THAT(s["compute_s"].get<double>(), WithinRel(compute1 / c, 0.05));
    const json* kv = collective(s, "cp_kv");
    const json* dkv = collective(s, "cp_dkv");
    REQUIRE(kv != nullptr);
    REQUIRE(dkv != nullptr);
    CHECK((*kv)["group"] == "context");
    CHECK((*kv)["collective"] == "send-recv");
    CHECK((*kv)["ranks"] == cp);
    CHECK((*kv)["links"] == "nvlink4");
    // K and V of s / cp tokens, 8 heads of 128, bf16; cp - 1 ring steps per layer in the
    // forward, again in the recomputed forward and in the backward (full recomputation).
    CHECK((*kv)["bytes"].get<double>() == static_cast<double>(kSeq / cp * 2 * kKv * 2));
    CHECK((*kv)["calls"] == 3 * (cp - 1) * kLayers);
    // dK and dV in fp32 (PyTorch's convert_to_f32 accumulators), cp sends per layer: every
    // ring step's and the last one home.
    CHECK((*dkv)["bytes"].get<double>() == static_cast<double>(kSeq / cp * 2 * kKv * 4));
    CHECK((*dkv)["calls"] == cp * kLayers);
    // A 16k-to-64k-token block's attention takes milliseconds, a 16-64 MiB send over NVLink
    // a fraction of one: the ring hides behind it but for the last dK/dV send per layer.
    const double last = (*dkv)["time_s"].get<double>() / c;
    CHECK(s["cp_comm_s"].get<double>() > 0);
    CHECK_THAT(s["cp_comm_s"].get<double>(), WithinRel(last, 1e-9));
    CHECK_THAT(
        s["cp_comm_s"].get<double>(),
        WithinRel((*kv)["exposed_s"].get<double>() + (*dkv)["exposed_s"].get<double>(), 1e-9));
    bool named = false;
    for (const json& p : s["parts"]) named = named || p["key"] == "cp_comm";
    CHECK(named);
    double sum = 0;
    for (const char* k : {"compute_s", "tp_comm_s", "pp_comm_s", "ep_comm_s", "cp_comm_s",
                          "dp_comm_s", "bubble_s", "optimizer_s"})
      sum += s[k].get<double>();
    CHECK_THAT(s["step_s"].get<double>(), WithinRel(sum, 1e-9));
  }
}

TEST_CASE("context parallelism without load balancing waits for the last chunk's attention",
          "[multigpu][context]") {
  // Contiguous chunks under a causal mask: the last GPU attends to cp - 1/2 blocks against
  // the mean cp / 2, (2 cp - 1) / cp times the balanced attention (PyTorch _attention.py's
  // load-balance note): with cp 4 the step's compute grows, by less than 7/4.
  json w = workload(4);
  const json balanced = dlcost::estimateDocument(llama8b(w))["gpu_fit"];
  w["cp_load_balance"] = "none";
  const json plain = dlcost::estimateDocument(llama8b(w))["gpu_fit"];
  const double b = balanced["step_time"]["compute_s"].get<double>();
  const double p = plain["step_time"]["compute_s"].get<double>();
  CHECK(p > b);
  CHECK(p < b * 7 / 4);
  CHECK(plain["parallel"]["cp_load_balance"] == "none");
  CHECK(balanced["parallel"]["cp_load_balance"] == "head_tail");
}

TEST_CASE("context-parallel input errors name the field", "[multigpu][context][errors]") {
  struct Case {
    const char* what;
    json doc;
    const char* path;
    const char* message;
  };
  json seq = workload(4);
  seq["seq_len"] = 1004;  // 1004 = 4 x 251: cp divides it, 2 x cp does not
  json seq_plain = seq;
  seq_plain["cp_load_balance"] = "none";
  seq_plain["seq_len"] = 1002;
  json infer = workload(2);
  infer["mode"] = "infer";
  json serve = workload(2);
  serve["mode"] = "infer";
  serve["engine"] = "vllm";
  json tp = workload(2);
  tp["tp"] = 8;
  tp["batch"] = 1;
  json batch = workload(2);
  batch["batch"] = 2;
  json three = workload(1);
  three["cp"] = 3;
  three["batch"] = 3;
  auto c = GENERATE_COPY(
      Case{"cp 3 does not divide 8 GPUs", llama8b(three), "/workload/cp",
           "does not divide gpus / (tp x pp) = 8"},
      Case{"cp 2 with tp 8 leaves one data-parallel GPU", llama8b(tp), "/workload/cp",
           "does not divide gpus / (tp x pp) = 1"},
      Case{"load balancing needs seq_len / (2 x cp)", llama8b(seq), "/workload/cp",
           "does not split into 8 equal chunks"},
      Case{"without load balancing seq_len / cp", llama8b(seq_plain), "/workload/cp",
           "does not split into 4 equal chunks"},
      Case{"inference", llama8b(infer), "/workload/cp", "training only"},
      Case{"serving", llama8b(serve), "/workload/cp", "training only"},
      Case{"load balancing an encoder's bidirectional attention",
           json{{"model", {{"preset", "bert-base-uncased"}}},
                {"workload",
                 {{"gpu", "h100-sxm"}, {"gpus", 2}, {"cp", 2}, {"batch", 1}, {"seq_len", 512}}}},
           "/workload/cp_load_balance", "bidirectional"},
      Case{"a layer graph",
           json{{"model", {{"preset", "resnet18"}}},
                {"workload", {{"gpu", "h100-sxm"}, {"gpus", 2}, {"cp", 2}, {"batch", 2}}}},
           "/workload/cp", "layer graph has none"},
      Case{"batch 2 over gpus / (tp x pp x cp) = 4 replicas", llama8b(batch), "/workload/batch",
           "4 data-parallel replicas (gpus / (tp x pp x cp))"});
  CAPTURE(c.what);
  const dlcost::Error e = errorOf(c.doc);
  CHECK(e.path == c.path);
  CHECK_THAT(e.message, Contains(c.message));
}

TEST_CASE("layouts keep the workload's cp in the splits it divides",
          "[multigpu][context][layouts]") {
  // 8 GPUs, cp 4: tp x pp of 1 x 1, 2 x 1 and 1 x 2 leave 8, 4 and 4 data-parallel GPUs
  // for cp 4; tp or pp of 4 or 8 leave too few and are not listed.
  const json l = dlcost::layoutsDocument(llama8b(workload(4)));
  REQUIRE(l["rows"].size() == 3);
  for (const json& r : l["rows"]) {
    CAPTURE(r.dump());
    CHECK(r["cp"] == 4);
    CHECK(r["set"]["cp"] == 4);
    CHECK(r["dp"].get<int64_t>() * r["tp"].get<int64_t>() * r["pp"].get<int64_t>() * 4 == 8);
  }
  CHECK(l["refused"].empty());
}

TEST_CASE("the advisor offers context parallelism where a sequence does not fit one GPU",
          "[multigpu][context][advice]") {
  // batch 8 on 8 GPUs, one 131,072-token sequence per GPU: 237 GiB of activations and
  // temporaries each. cp 2 leaves about 128 GiB (no fit), cp 4 about 71 GiB (fits, the table
  // above): batch 2 x 4 accumulation steps keeps the optimizer step's 8 sequences.
  json w = workload(1);
  w["batch"] = 8;
  const json f = dlcost::estimateDocument(llama8b(w))["gpu_fit"];
  REQUIRE_FALSE(f["fits"].get<bool>());
  const json* cp = nullptr;
  for (const json& a : f["advice"])
    if (a["change"].get<std::string>().rfind("context parallelism", 0) == 0) cp = &a;
  REQUIRE(cp != nullptr);
  CHECK_THAT((*cp)["change"].get<std::string>(), Contains("over 4 GPUs"));
  // The workload fields the advice changes (what the page's "Apply" sets).
  CHECK((*cp)["set"] == json{{"cp", 4}, {"batch", 2}, {"grad_accum", 4}});
}
