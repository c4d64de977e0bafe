#include "dlcost/api.hpp"

#include <cstdint>
#include <cstring>

#include "dlcost/base/error.hpp"
#include "dlcost/base/units.hpp"
#include "dlcost/explore/advisor.hpp"
#include "dlcost/explore/compare.hpp"
#include "dlcost/explore/sweep.hpp"
#include "dlcost/gpu/gpu_json.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/explain.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/report/share_link.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"
#include "types/json_writer.hpp"

namespace dlcost {

namespace {

/// A preset's top-level "metrics" (null without), read from that member alone: the preset
/// list is the page's first engine call, and parsing every preset document (226 KB) for it
/// took 10 to 40 ms in the page's engine (docs/benchmarks.md, "Session 5"). The presets are
/// the engine's own files, "metrics" a top-level member named nowhere else in them
/// (tests/test_compare_views.cpp checks every preset against its whole parsed document).
nlohmann::json presetMetrics(const char* text) {
  const char* key = std::strstr(text, "\"metrics\"");
  const char* colon = key ? std::strchr(key, ':') : nullptr;
  if (!colon) return nullptr;
  nlohmann::json value;
  nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom(value);
  // Not strict: the value ends where the rest of the document begins.
  nlohmann::json::sax_parse(colon + 1, text + std::strlen(text), &dom,
                            nlohmann::json::input_format_t::json, false);
  return value;
}

std::string internalError(const std::exception& e) {
  return dumpJson(
      errorToJson(Error{ErrorCode::kInternal, "", std::string("internal error: ") + e.what()}));
}

std::vector<int64_t> readBatches(const std::string& text) {
  const nlohmann::json list = parseDocumentText(text);
  if (!list.is_array()) {
    throw InputError(ErrorCode::kType, "/batches", "must be an array of batch sizes");
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < list.size() && i <= kMaxSweepPoints; ++i) {
    if (!list[i].is_number_integer()) {
      throw InputError(ErrorCode::kType, childPath("/batches", i), "must be an integer");
    }
    if (list[i].is_number_unsigned() &&
        list[i].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      throw InputError(ErrorCode::kTooLarge, childPath("/batches", i),
                       "is larger than 64-bit arithmetic allows");
    }
    out.push_back(list[i].get<int64_t>());
  }
  return out;
}

nlohmann::json sweepToJson(const BatchSweep& s) {
  nlohmann::json points = nlohmann::json::array();
  for (const BatchPoint& p : s.points) {
    nlohmann::json point = {{"batch", p.batch}, {"total", p.total}};
    if (p.fits) point["fits"] = *p.fits;
    if (p.samples_per_s) point["samples_per_s"] = *p.samples_per_s;
    if (p.step_time_s) point["step_time_s"] = *p.step_time_s;
    points.push_back(std::move(point));
  }
  nlohmann::json j = {
      {"schema", "dlcost.sweep/2"},     {"per_gpu", s.per_gpu}, {"data_parallel", s.data_parallel},
      {"microbatches", s.microbatches}, {"fixed", s.fixed},     {"per_sample", s.per_sample},
      {"points", std::move(points)}};
  if (s.memory_bytes) j["memory_bytes"] = *s.memory_bytes;
  if (s.max_batch) j["max_batch"] = *s.max_batch;
  if (const std::optional<int64_t> sat = saturationBatch(s)) {
    j["saturation"] = {{"share", kSaturationShare}, {"batch", *sat}};
  }
  return j;
}

/// GPUs a comparison left out, and why.
nlohmann::json skippedJson(const std::vector<Error>& skipped) {
  nlohmann::json list = nlohmann::json::array();
  for (const Error& e : skipped)
    list.push_back({{"code", errorCodeName(e.code)}, {"path", e.path}, {"message", e.message}});
  return list;
}

}  // namespace

nlohmann::json estimateDocument(const nlohmann::json& document) {
  const SharedConfig config = parseSharedConfig(document);
  return reportToJson(estimateWithAdvice(*config.model, config.workload));
}

nlohmann::json compareDocument(const nlohmann::json& document, const std::string& sort) {
  const SharedConfig config = parseSharedConfig(document);
  std::vector<Error> skipped;
  std::vector<CompareRow> rows = compareGpus(*config.model, config.workload, &skipped);
  // The best buy: the fitting configuration with the most samples/s per 1000 USD.
  std::vector<CompareRow> by_price = rows;
  sortCompareRows(by_price, "per_1000usd", "/sort");
  const bool has_best = !by_price.empty() && by_price.front().fits &&
                        by_price.front().samples_per_s_per_1000usd.has_value();
  sortCompareRows(rows, sort, "/sort");
  nlohmann::json out = nlohmann::json::array();
  for (const CompareRow& r : rows) {
    out.push_back(
        {{"gpu", r.gpu.id},
         {"name", r.gpu.name},
         {"fits", r.fits},
         {"per_gpu_bytes", r.per_gpu_bytes},
         {"usable_bytes", r.usable_bytes},
         {"max_batch", r.max_batch},
         {"step_time_s", r.step_time_s},
         {"samples_per_s", r.samples_per_s},
         {"tokens_per_s", r.tokens_per_s ? nlohmann::json(*r.tokens_per_s) : nullptr},
         {"samples_per_s_per_1000usd",
          r.samples_per_s_per_1000usd ? nlohmann::json(*r.samples_per_s_per_1000usd) : nullptr},
         {"samples_per_s_per_watt", r.samples_per_s_per_watt},
         {"price_usd", r.gpu.price_usd},
         {"tdp_watts", r.gpu.tdp_watts}});
  }
  Workload base = config.workload;  // the GPU-independent part of the report
  base.hardware.gpu.reset();
  const nlohmann::json report = reportToJson(estimate(*config.model, base));
  return {{"schema", "dlcost.compare/1"},
          {"model", report["model"]},
          {"workload", report["workload"]},
          {"sort", sort},
          {"best_buy", has_best ? nlohmann::json(by_price.front().gpu.id) : nullptr},
          {"rows", std::move(out)},
          {"skipped", skippedJson(skipped)}};
}

nlohmann::json gpuTable() {
  return gpuTableJson();
}

std::string estimateText(const std::string& document_text) {
  try {
    const SharedConfig config = parseSharedConfigText(document_text);
    return reportJsonText(estimateWithAdvice(*config.model, config.workload));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

std::string sweepBatchText(const std::string& document_text, const std::string& batches_json_text) {
  try {
    const SharedConfig config = parseSharedConfigText(document_text);
    const Report report = estimate(*config.model, config.workload);
    return dumpJson(sweepToJson(sweepBatch(report, readBatches(batches_json_text))));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

std::string estimateWithSweepText(const std::string& document_text, int points) {
  try {
    const SharedConfig config = parseSharedConfigText(document_text);
    const Report report = estimateWithAdvice(*config.model, config.workload);
    // {"report": R, "sweep": S}, R written directly as estimateText writes it.
    return "{\"report\":" + reportJsonText(report) +
           ",\"sweep\":" + dumpJson(sweepToJson(sweepBatch(report, chartBatches(report, points)))) +
           "}";
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

nlohmann::json presetListJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const PresetInfo& p : presetList()) {
    nlohmann::json entry = {
        {"name", p.name}, {"family", p.family}, {"source", p.source}, {"source_zh", p.source_zh}};
    // Published facts stored with the preset (e.g. ImageNet top-1 with its source).
    nlohmann::json metrics = presetMetrics(presetJson(p.name));
    if (!metrics.is_null()) entry["metrics"] = std::move(metrics);
    list.push_back(std::move(entry));
  }
  return list;
}

std::string presetText(const std::string& name) {
  const char* text = presetJson(name);
  if (!text) {
    return dumpJson(
        errorToJson(Error{ErrorCode::kValue, "/model/preset",
                          "unknown preset '" + name + "' (`dlcost presets` lists them)"}));
  }
  return text;
}

std::string sweepThroughputText(const std::string& document_text,
                                const std::string& batches_json_text) {
  try {
    const SharedConfig config = parseSharedConfigText(document_text);
    const Report report = estimate(*config.model, config.workload);
    // null: the engine's batches for a throughput chart.
    const bool chosen = parseDocumentText(batches_json_text).is_null();
    BatchSweep sweep =
        sweepBatch(report, chosen ? throughputBatches(report) : readBatches(batches_json_text));
    addThroughput(sweep, *config.model, config.workload);
    return dumpJson(sweepToJson(sweep));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

nlohmann::json comparePresetsDocument(const nlohmann::json& document) {
  if (!document.is_object()) {
    throw InputError(ErrorCode::kType, "", "must be an object {\"family\", \"workload\"}");
  }
  for (const auto& [key, value] : document.items()) {
    if (key != "family" && key != "workload") {
      throw InputError(ErrorCode::kUnknownField, "/" + key, "unknown field (family, workload)");
    }
  }
  std::string family;
  if (document.contains("family")) {
    if (!document["family"].is_string()) {
      throw InputError(ErrorCode::kType, "/family", "must be a string");
    }
    family = document["family"].get<std::string>();
  }
  const nlohmann::json workload =
      document.contains("workload") ? document["workload"] : nlohmann::json::object();
  nlohmann::json rows = nlohmann::json::array();
  for (const nlohmann::json& info : presetListJson()) {
    if (!family.empty() && info["family"] != family) continue;
    nlohmann::json row = {{"name", info["name"]}, {"family", info["family"]}};
    if (info.contains("metrics")) row["metrics"] = info["metrics"];
    try {
      const SharedConfig config =
          parseSharedConfig({{"model", {{"preset", info["name"]}}}, {"workload", workload}});
      const Report r = estimate(*config.model, config.workload);
      row["params"] = r.params.total;
      row["macs_forward"] = wideToJson(r.macs.forward);
      row["memory_total"] = r.memory.total;
      if (r.gpu_fit) row["fits"] = r.gpu_fit->fits;
    } catch (const InputError& e) {
      row["error"] = errorToJson(e.error())["error"];
    }
    rows.push_back(std::move(row));
  }
  return {{"schema", "dlcost.presets_compare/1"}, {"family", family}, {"rows", std::move(rows)}};
}

nlohmann::json explainDocument(const nlohmann::json& document, const std::string& language,
                               const std::string& units) {
  const auto lang = parseLanguage(language);
  if (!lang)
    throw InputError(ErrorCode::kValue, "/lang",
                     "must be \"en\" or \"zh\", not \"" + language + "\"");
  const auto byte_units = parseByteUnits(units);
  if (!byte_units) {
    throw InputError(ErrorCode::kValue, "/units",
                     "must be \"binary\" or \"decimal\", not \"" + units + "\"");
  }
  const SharedConfig config = parseSharedConfig(document);
  const Report report = estimateWithAdvice(*config.model, config.workload);
  nlohmann::json explanations = nlohmann::json::array();
  for (const Explanation& e : explainReport(*config.model, report, *lang, *byte_units)) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const FormulaTerm& t : e.inputs) {
      inputs.push_back({{"symbol", t.symbol}, {"label", t.label}, {"value", t.value}});
    }
    explanations.push_back({{"id", e.id},
                            {"title", e.title},
                            {"formula", e.formula},
                            {"inputs", std::move(inputs)},
                            {"result", e.result},
                            {"text", e.text}});
  }
  nlohmann::json dominant = nlohmann::json::array();
  for (const Dominance& d : dominantTerms(report, *lang)) {
    dominant.push_back({{"quantity", d.quantity},
                        {"layer_type", d.layer_type},
                        {"layers", d.layers},
                        {"share", d.share},
                        {"names", d.names},
                        {"text", d.text}});
  }
  return {{"explanations", std::move(explanations)}, {"dominant", std::move(dominant)}};
}

std::string shareLinkEncodeText(const std::string& state_text) {
  try {
    return dumpJson({{"fragment", encodeShareLink(parseDocumentText(state_text))}});
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

std::string shareLinkDecodeText(const std::string& fragment) {
  try {
    nlohmann::json state = decodeShareLink(fragment);
    const bool has_document = shareLinkHasDocument(state);
    return dumpJson({{"state", std::move(state)}, {"has_document", has_document}});
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e);
  }
}

}  // namespace dlcost
