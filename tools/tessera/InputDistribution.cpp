#include "tessera/InputDistribution.h"

#include "tessera/Driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
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

/// `x` rounded to the nearest float (ties to even), as static_cast<float> rounds it, without its branch on the top
/// bit (taken half the time by random bits; x86-64 before AVX-512 converts only signed integers): a number of 64
/// bits is halved keeping its lowest bit as a sticky bit, which rounds the same, converted as signed and doubled.
float toFloat(uint64_t x) {
  const uint64_t top = x >> 63;
  return static_cast<float>(static_cast<int64_t>((x >> top) | (x & top))) * static_cast<float>(1 + top);
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
  // The draws are LO + u (HI - LO) in FP32 (InputDraws): a width past FP32's range would make them inf or NaN.
  if (d.kind == Kind::Uniform && !std::isfinite(static_cast<float>(d.b) - static_cast<float>(d.a)))
    throw InputError(fmt::format("--input-dist {}: the range is wider than FP32 holds ({} at most)", text,
                                 std::numeric_limits<float>::max()),
                     {}, "narrow the range");
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

InputDraws::InputDraws(const InputDistribution &dist, uint64_t seed)
    : rng_(seed), normal_(dist.kind == InputDistribution::Kind::Normal), low_(static_cast<float>(dist.a)),
      width_(static_cast<float>(dist.b) - static_cast<float>(dist.a)) {
  // Only a normal distribution's b is a standard deviation (std::normal_distribution requires it positive; a
  // range's high end may be 0 or negative).
  if (normal_) gaussian_ = std::normal_distribution<float>(static_cast<float>(dist.a), static_cast<float>(dist.b));
}

float InputDraws::canonical(uint64_t x) {
  constexpr float kBelowOne = 0x1.fffffep-1f; // the largest float below 1
  return std::min(toFloat(x) * 0x1p-64f, kBelowOne);
}

void InputDraws::fill(std::span<float> out) {
  if (normal_) {
    for (float &v : out) v = gaussian_(rng_);
    return;
  }
  for (float &v : out) v = canonical(rng_()) * width_ + low_;
}

} // namespace tessera::driver
