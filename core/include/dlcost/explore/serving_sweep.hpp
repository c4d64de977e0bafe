#pragma once
// A serving plan swept over users and context lengths: the page's "tokens/s and memory against
// users and against context" charts and `dlcost sweep --engine ...` in one call.

#include <string>

namespace dlcost {

/// Most points one sweep computes (each is one estimate).
constexpr int kMaxServingSweepPoints = 256;

/// The document's serving plan at every (users, context) pair of `users_json_text` x
/// `contexts_json_text` (JSON arrays of integers >= 1). `null` users: powers of two from 1 to
/// the first at or above twice the plan's max_users (at least the workload's users), the chart's
/// points; `null` contexts: the workload's own.
/// Never throws. Returns `{"schema": "dlcost.serving_sweep/1", "engine", "points": [{"users",
/// "context", "fits", "device_bytes", "host_bytes", "max_users", "speed"?: {...}}]}`, or
/// errorToJson's object (paths into the document, "/users/i" or "/contexts/i" for a bad entry).
std::string servingSweepText(const std::string& document_text, const std::string& users_json_text,
                             const std::string& contexts_json_text);

}  // namespace dlcost
