// Explanations: every figure's derivation carries the report's own numbers, in both languages.
#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>

#include "dlcost/api.hpp"
#include "dlcost/base/units.hpp"

using nlohmann::json;

namespace {

json document(const std::string& preset, const json& workload) {
  return {{"model", {{"preset", preset}}}, {"workload", workload}};
}

}  // namespace

TEST_CASE("each explanation's result is the report's figure at its id", "[explain]") {
  const auto preset = GENERATE(as<std::string>{}, "alexnet", "resnet50", "mobilenet_v2",
                               "mlp_mnist", "gpt2", "llama-2-7b", "mixtral-8x7b");
  const json workload =
      GENERATE(json{{"mode", "train"}, {"batch", 8}, {"memory_gib", 12}},
               json{{"mode", "infer"}, {"batch", 3}, {"dtype", "fp16"}},
               json{{"batch", 16}, {"dtype", "mixed"}, {"optimizer", "momentum"}, {"gpu", "h200"}},
               // LLM inference on a GPU: the decode speed and the bound are explained too.
               json{{"mode", "infer"}, {"batch", 2}, {"dtype", "bf16"}, {"gpu", "rtx-4090"}});
  CAPTURE(preset, workload.dump());
  const json doc = document(preset, workload);
  const json report = dlcost::estimateDocument(doc);
  for (const char* lang : {"en", "zh"}) {
    const json ex = dlcost::explainDocument(doc, lang);
    REQUIRE(ex["explanations"].size() >= 6);
    for (const json& e : ex["explanations"]) {
      const std::string id = e["id"];
      CAPTURE(lang, id, e["text"].get<std::string>());
      const json& value = report.at(json::json_pointer(id));
      const std::string result = e["result"];
      if (value.is_number_integer()) {
        // Bytes and counts are shown exactly, digits grouped, before any rounded unit.
        CHECK(result.rfind(dlcost::groupDigits(value.get<int64_t>()), 0) == 0);
      }
      CHECK(e["text"].get<std::string>().find(result) != std::string::npos);
      if (id == "/memory/total") {
        // The derivation lists every non-zero line; its numbers add up to the total.
        std::string text = e["text"].get<std::string>();
        text = text.substr(text.find('=') + 1);
        text = text.substr(0, text.find('='));
        int64_t sum = 0, current = 0, sign = 1;
        for (char c : text + " ") {
          if (c >= '0' && c <= '9') {
            current = current * 10 + (c - '0');
          } else if (c == '-') {
            sign = -1;  // a negative line (the gradients not made yet at the backward peak)
          } else if (c != ',') {
            sum += sign * current;
            current = 0;
            if (c != ' ') sign = 1;
          }
        }
        CHECK(sum == report["memory"]["total"].get<int64_t>());
      }
    }
  }
}

TEST_CASE("the Chinese explanations translate the words and keep the numbers", "[explain]") {
  const json doc = document("resnet18", {{"batch", 4}});
  const json en = dlcost::explainDocument(doc, "en")["explanations"];
  const json zh = dlcost::explainDocument(doc, "zh")["explanations"];
  REQUIRE(en.size() == zh.size());
  for (size_t i = 0; i < en.size(); ++i) {
    CAPTURE(en[i]["id"].get<std::string>());
    CHECK(en[i]["id"] == zh[i]["id"]);
    CHECK(en[i]["result"] == zh[i]["result"]);
    CHECK(en[i]["formula"] == zh[i]["formula"]);
  }
  auto title = [](const json& list, const std::string& id) {
    for (const json& e : list) {
      if (e["id"] == id) return e["title"].get<std::string>();
    }
    return std::string();
  };
  // ResNet-18 training in fp32: weights, buffers, gradients, optimizer states, ...
  CHECK(title(en, "/memory/terms/3/bytes") == "optimizer states");
  CHECK(title(zh, "/memory/terms/3/bytes") == "优化器状态");
}

TEST_CASE("the optimizer-state explanation shows states x trainable parameters x bytes",
          "[explain]") {
  // ResNet-50: 25,557,032 parameters (torchvision ResNet50_Weights.IMAGENET1K_V1); Adam
  // keeps 2 fp32 states per parameter: 2 x 25,557,032 x 32 bits / 8 = 204,456,256 B. The
  // explanation is the term's own formula with its own inputs.
  const json doc = document("resnet50", {{"optimizer", "adam"}});
  const json ex = dlcost::explainDocument(doc);
  const json report = dlcost::estimateDocument(doc);
  REQUIRE(report["memory"]["terms"][3]["key"] == "optimizer_states");
  bool found = false;
  for (const json& e : ex["explanations"]) {
    if (e["id"] != "/memory/terms/3/bytes") continue;
    found = true;
    CHECK(e["formula"] == report["memory"]["terms"][3]["formula"]);
    CHECK(e["text"].get<std::string>().find("2 × 25,557,032 × 32 / 8") != std::string::npos);
    CHECK(e["result"].get<std::string>().rfind("204,456,256 B", 0) == 0);
  }
  CHECK(found);
}

TEST_CASE("dominant terms are computed from the layers", "[explain]") {
  // AlexNet (torchvision alexnet.py): the three linear layers hold 58,631,144 of
  // 61,100,840 parameters; the five convolutions do 655,566,528 of 714,188,480 MACs.
  const json dom = dlcost::explainDocument(document("alexnet", {{"batch", 1}}))["dominant"];
  REQUIRE(dom.size() == 4);
  CHECK(dom[0]["quantity"] == "params");
  CHECK(dom[0]["layer_type"] == "linear");
  CHECK(dom[0]["layers"] == 3);
  CHECK_THAT(dom[0]["share"].get<double>(),
             Catch::Matchers::WithinRel(58631144.0 / 61100840.0, 1e-12));
  CHECK(dom[0]["text"] == "3 linear layers hold 96.0 % of the parameters");
  CHECK(dom[1]["layer_type"] == "conv2d");
  CHECK(dom[1]["layers"] == 5);
  CHECK_THAT(dom[1]["share"].get<double>(),
             Catch::Matchers::WithinRel(655566528.0 / 714188480.0, 1e-12));
  // One layer takes the singular verb: Llama-3-8B's activation memory is led by its one
  // lm_head linear layer (config.json: a separate lm_head, tie_word_embeddings false): with
  // QLoRA's bf16 compute and full recomputation its fp32 log-probabilities (4 x 128,256 bytes
  // per token) outweigh the 32 layers' bf16 checkpoints (32 x 2 x 4,096).
  const json llm =
      dlcost::explainDocument(document("llama-3-8b", {{"mode", "train"},
                                                      {"finetune", "qlora"},
                                                      {"dtype", "bf16"},
                                                      {"recompute", "full"}}))["dominant"];
  bool singular = false;
  for (const json& d : llm) {
    if (d["layers"] == 1) {
      CAPTURE(d["text"]);
      const std::string text = d["text"];
      const bool one = text.find(" layer keeps ") != std::string::npos ||
                       text.find(" layer holds ") != std::string::npos ||
                       text.find(" layer does ") != std::string::npos;
      CHECK(one);
      singular = true;
    }
  }
  CHECK(singular);
}

TEST_CASE("explain refuses an unknown language or unit system", "[explain][errors]") {
  const json doc = document("alexnet", json::object());
  CHECK_THROWS_WITH(dlcost::explainDocument(doc, "fr"), Catch::Matchers::Contains("/lang"));
  CHECK_THROWS_WITH(dlcost::explainDocument(doc, "en", "imperial"),
                    Catch::Matchers::Contains("/units"));
}

namespace {

/// Evaluates a derivation as explain.cpp writes it: grouped integers, ×, +, − and brackets.
class Arithmetic {
 public:
  explicit Arithmetic(std::string text) : s_(std::move(text)) {}
  int64_t value() {
    const int64_t v = sum();
    skip();
    if (at_ != s_.size()) throw std::runtime_error("unread: " + s_.substr(at_));
    return v;
  }

 private:
  void skip() {
    while (at_ < s_.size() && s_[at_] == ' ') ++at_;
  }
  bool eat(const std::string& token) {
    skip();
    if (s_.compare(at_, token.size(), token) != 0) return false;
    at_ += token.size();
    return true;
  }
  int64_t sum() {
    int64_t v = product();
    for (;;) {
      if (eat("+")) {
        v += product();
      } else if (eat("−")) {
        v -= product();
      } else {
        return v;
      }
    }
  }
  int64_t product() {
    int64_t v = factor();
    while (eat("×")) v *= factor();
    return v;
  }
  int64_t factor() {
    if (eat("(")) {
      const int64_t v = sum();
      if (!eat(")")) throw std::runtime_error("no ) in " + s_);
      return v;
    }
    skip();
    int64_t v = 0;
    const size_t start = at_;
    while (at_ < s_.size() && ((s_[at_] >= '0' && s_[at_] <= '9') || s_[at_] == ',')) {
      if (s_[at_] != ',') v = v * 10 + (s_[at_] - '0');
      ++at_;
    }
    if (at_ == start) throw std::runtime_error("no number at " + s_.substr(at_));
    return v;
  }
  std::string s_;
  size_t at_ = 0;
};

}  // namespace

TEST_CASE("transformer rows are explained by the formulas that computed them", "[explain]") {
  // Dense GQA (Llama 3), biases and a tied head (GPT-2), MoE (Mixtral), MLA (DeepSeek-V3),
  // an encoder-decoder with relative position bias (T5), an encoder (BERT); training with and
  // without recomputation, inference, LoRA.
  const auto preset = GENERATE(as<std::string>{}, "llama-3-8b", "gpt2", "mixtral-8x7b",
                               "deepseek-v3", "t5-base", "bert-base-uncased");
  const json workload =
      GENERATE(json{{"mode", "train"}, {"batch", 2}, {"seq_len", 512}, {"dtype", "bf16"}},
               json{{"mode", "train"}, {"batch", 1}, {"seq_len", 256}, {"recompute", "full"}},
               json{{"mode", "infer"}, {"batch", 3}, {"prompt_tokens", 100}, {"dtype", "fp16"}},
               json{{"mode", "train"}, {"finetune", "lora"}, {"batch", 1}, {"seq_len", 128}});
  CAPTURE(preset, workload.dump());
  const json doc = document(preset, workload);
  const json report = dlcost::estimateDocument(doc);
  const json ex = dlcost::explainDocument(doc, "en")["explanations"];
  std::map<std::string, int> explained;  // figure -> rows explained
  for (const json& e : ex) {
    const std::string id = e["id"];
    if (id.rfind("/layers/", 0) != 0) continue;
    const std::string figure = id.substr(id.rfind('/') + 1);
    explained[figure] += 1;
    // "name: title = derivation = result": the derivation, worked out, is the row's figure.
    const std::string text = e["text"];
    CAPTURE(id, text);
    const size_t first = text.find(" = ");
    const size_t last = text.rfind(" = ");
    REQUIRE(first != last);
    const int64_t worked = Arithmetic(text.substr(first + 3, last - first - 3)).value();
    CHECK(worked == report.at(json::json_pointer(id)).get<int64_t>());
  }
  // Every row's MACs (where it does any) and activation memory, and the attention and MLP
  // rows' parameters, open to their formula.
  int with_macs = 0, blocks = 0;
  for (const json& l : report["layers"]) {
    with_macs += l["macs"].get<int64_t>() > 0;
    const std::string type = l["type"];
    blocks += type == "attention" || type == "mlp" || type == "moe";
  }
  CHECK(explained["macs"] == with_macs);
  CHECK(explained["activation_bytes"] == static_cast<int>(report["layers"].size()));
  CHECK(explained["params"] >= blocks);
}
