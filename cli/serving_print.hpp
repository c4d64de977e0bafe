#pragma once
// The serving plan as text: engine, memory on the GPU and in system RAM, users, speed and the
// launch command. Every figure is the engine's (Report::serving).

#include <ostream>

#include <nlohmann/json.hpp>

#include "dlcost/base/units.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost::cli {

void printServing(std::ostream& out, const ServingPlan& plan, ByteUnits units);

/// servingSweepText's points as a table: context, users, fits, GPU memory, speeds.
void printServingSweep(std::ostream& out, const nlohmann::json& sweep, ByteUnits units);

}  // namespace dlcost::cli
