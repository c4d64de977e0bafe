// The requests of a load (load_sim.hpp's loadRequests): the trace as given, or generated with
// the project's own random numbers so that every platform draws the same ones (the standard
// library's distributions are implementation-defined: libstdc++ and Emscripten's libc++
// differ).
#include <algorithm>
#include <cmath>

#include "dlcost/serving/load_sim.hpp"

namespace dlcost {

namespace {

/// splitmix64 (Steele, Lea and Flood 2014): small, fast and the same everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1): the top 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Exponential with rate `rate` (inverse CDF).
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
  /// Standard normal (Box-Muller, one of the pair).
  double normal() {
    const double u = 1.0 - uniform();  // (0, 1]
    const double v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * 3.14159265358979323846 * v);
  }

 private:
  uint64_t state_;
};

int64_t draw(const LengthDistribution& dist, Random& rng) {
  double x = dist.mean;
  switch (dist.kind) {
    case LengthDistribution::Kind::kFixed:
      break;
    case LengthDistribution::Kind::kUniform:
      x = static_cast<double>(dist.lo) +
          std::floor(rng.uniform() * static_cast<double>(dist.hi - dist.lo + 1));
      break;
    case LengthDistribution::Kind::kNormal:
      x = std::round(dist.mean + dist.sd * rng.normal());
      break;
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::min(x, 1e15)));
}

}  // namespace

std::vector<LoadRequest> loadRequests(const LoadSettings& s) {
  if (s.arrivals == LoadSettings::Arrivals::kTrace) return s.trace;
  Random rng(s.seed);
  std::vector<LoadRequest> out;
  out.reserve(static_cast<size_t>(std::min(s.requests, kMaxLoadRequests)));
  double t = 0;
  for (int64_t i = 0; i < s.requests && i < kMaxLoadRequests; ++i) {
    LoadRequest q;
    if (s.arrivals == LoadSettings::Arrivals::kPoisson) {
      t += rng.exponential(s.rate);
      q.arrival_s = t;
    }
    q.prompt_tokens = draw(s.prompt, rng);
    q.output_tokens = draw(s.output, rng);
    out.push_back(q);
  }
  return out;
}

}  // namespace dlcost
