#pragma once
// The serving plan as text: engine, memory on the GPU and in system RAM, users, speed and the
// launch command. Every figure is the engine's (Report::serving).

#include <ostream>

#include "dlcost/report.hpp"
#include "dlcost/units.hpp"

namespace dlcost::cli {

void printServing(std::ostream& out, const ServingPlan& plan, ByteUnits units);

}  // namespace dlcost::cli
