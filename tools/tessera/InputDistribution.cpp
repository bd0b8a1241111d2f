#include "tessera/InputDistribution.h"

#include "tessera/Driver.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

namespace tessera::driver {

namespace {

constexpr std::string_view kExpected =
    "expected uniform, range:LO,HI (uniform in [LO, HI)), normal or normal:MEAN,SD";

std::optional<double> number(std::string_view s) {
  double v = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (error != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

} // namespace

InputDistribution InputDistribution::parse(std::string_view text) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  InputDistribution d;
  if (name == "uniform" && colon == std::string_view::npos) return d;
  if (name == "normal") d = {.kind = Kind::Normal, .a = 0.0, .b = 1.0};
  else if (name != "range") throw InputError(fmt::format("--input-dist {}: {}", text, kExpected));
  if (colon == std::string_view::npos) {
    if (name == "range") throw InputError(fmt::format("--input-dist {}: range needs its ends, range:LO,HI", text));
    return d;
  }
  const std::string_view values = text.substr(colon + 1);
  const size_t comma = values.find(',');
  const std::optional<double> a = comma == std::string_view::npos ? std::nullopt : number(values.substr(0, comma));
  const std::optional<double> b = comma == std::string_view::npos ? std::nullopt : number(values.substr(comma + 1));
  if (!a || !b) throw InputError(fmt::format("--input-dist {}: {}, with two numbers after the colon", text, kExpected));
  d.a = *a, d.b = *b;
  if (d.kind == Kind::Uniform && !(d.a < d.b))
    throw InputError(fmt::format("--input-dist {}: the range's low end must be below its high end", text));
  if (d.kind == Kind::Normal && !(d.b > 0))
    throw InputError(fmt::format("--input-dist {}: the standard deviation must be positive", text));
  return d;
}

std::string InputDistribution::describe() const {
  if (kind == Kind::Normal) return fmt::format("normal (mean {}, sd {})", a, b);
  return fmt::format("uniform [{}, {})", a, b);
}

double InputDistribution::largestMagnitude() const {
  if (kind == Kind::Normal) return std::abs(a) + 6 * b;
  return std::max(std::abs(a), std::abs(b));
}

} // namespace tessera::driver
