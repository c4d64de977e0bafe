#pragma once
// Model files on disk for the CLI: `dlcost inspect FILE`, and the Hugging Face cache lookup
// of `estimate --hf ORG/NAME`. Reads only what the engine asks for; prints what it returns.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlcost/model_files/model_file.hpp"

#include "dlcost/base/units.hpp"

namespace dlcost::cli {

/// The whole file at `path` (the CLI's one reader of whole files). Throws InputError when it
/// cannot be opened.
std::string readFile(const std::string& path);

/// The engine's summary of a GGUF, safetensors or index file (inspectModelFile), reading its
/// first megabyte and more only when the header is longer. Throws InputError.
nlohmann::json inspectFile(const std::string& path);

/// The kind of the file at `path` from its first bytes (dlcost::detectModelFile); an
/// InputError naming those bytes and the accepted kinds when it is none of them.
ModelFileKind fileKind(const std::string& path);

/// The config.json a GGUF summary stands for (its "gguf.hf_config"); throws InputError with
/// the reason when the file is not a GGUF or its architecture has no mapping.
nlohmann::json ggufConfig(const nlohmann::json& summary);

/// What `estimate --gguf` adds to a report: the file's exact parameters and stored bytes by
/// type, and the engine's parameter check ("model_file" in --json).
nlohmann::json modelFileNote(const nlohmann::json& summary);
void printModelFileNote(std::ostream& out, const nlohmann::json& summary, ByteUnits units);
/// Prints dlcost::componentCheck's object (a checkpoint's tensors against the engine's
/// components); nothing for null (no check applies).
void printComponentCheck(std::ostream& out, const nlohmann::json& check);

/// `dlcost inspect FILE [--json] [--tensors] [--config] [--units binary|decimal]`; `args` follow
/// "inspect". Returns the exit status; throws UsageError or InputError.
int runInspect(const std::vector<std::string>& args);

/// The config.json of a Hub model in the local Hugging Face cache:
/// $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
/// ~/.cache/huggingface/hub; then models--ORG--NAME/snapshots/<revision>/config.json (the
/// revision refs/main names, else the only or newest snapshot). Throws InputError naming
/// every place it looked when there is none.
std::string findCachedHfConfig(const std::string& model_id);

}  // namespace dlcost::cli
