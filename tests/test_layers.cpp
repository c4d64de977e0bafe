// Per-layer rules: output shapes, parameters and MACs.
#include <catch2/catch.hpp>

#include "dlcost/config_json.hpp"
#include "dlcost/estimate.hpp"

using dlcost::estimate;
using dlcost::parseConfig;
using nlohmann::json;

namespace {

dlcost::Report run(const json& layers, const json& input, const json& workload = json::object()) {
  const dlcost::Config c =
      parseConfig(json{{"model", {{"input", input}, {"layers", layers}}}, {"workload", workload}});
  return estimate(c.model, c.workload);
}

}  // namespace

TEST_CASE("conv2d output size follows floor((H + 2P - D(K-1) - 1)/S) + 1", "[layers][conv]") {
  // The formula of PyTorch's nn.Conv2d documentation (shape section).
  struct Case {
    int h, k, s, p, d, expected;
  };
  const auto c =
      GENERATE(Case{224, 11, 4, 2, 1, 55}, Case{224, 7, 2, 3, 1, 112}, Case{56, 3, 1, 1, 1, 56},
               Case{56, 3, 2, 1, 1, 28}, Case{32, 3, 1, 2, 2, 32}, Case{7, 7, 1, 0, 1, 1});
  CAPTURE(c.h, c.k, c.s, c.p, c.d);
  const auto r = run(json::array({{{"type", "conv2d"},
                                   {"out_channels", 8},
                                   {"kernel", c.k},
                                   {"stride", c.s},
                                   {"padding", c.p},
                                   {"dilation", c.d}}}),
                     {3, c.h, c.h});
  CHECK(r.layers[1].output_shape == dlcost::Shape{8, c.expected, c.expected});
  // Parameters: K x K x C_in x C_out + C_out bias.
  CHECK(r.params.total == c.k * c.k * 3 * 8 + 8);
  // MACs: H_out x W_out x C_out x K x K x C_in.
  CHECK(r.macs.forward == int64_t{c.expected} * c.expected * 8 * c.k * c.k * 3);
}
