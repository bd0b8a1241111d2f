#!/usr/bin/env python3
"""Prints the C++ test-vector tables of tests/unit/isa/NumberFormatsTest.cpp.

The expected bits come from the reference libraries themselves: ml_dtypes for bfloat16, float8_e4m3fn and
float8_e5m2, numpy for float16. The script makes its own virtual environment with pinned versions, so the tables
can be regenerated anywhere PyPI is reachable:

    python3 tests/unit/isa/gen_number_format_vectors.py > /tmp/vectors.inc

then paste the output between the "BEGIN GENERATED" and "END GENERATED" lines of NumberFormatsTest.cpp.
"""

import os
import subprocess
import sys

VENV = "/tmp/nfvenv"
PINNED = ["ml_dtypes==0.6.0", "numpy==2.4.6"]


def ensure_venv():
    """Re-runs this script inside a venv that has the pinned packages."""
    if sys.prefix == VENV:
        return
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV], stdout=sys.stderr)
    subprocess.check_call([python, "-m", "pip", "install", "-q", *PINNED], stdout=sys.stderr)
    os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])


ensure_venv()

import warnings  # noqa: E402

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

warnings.simplefilter("ignore")  # overflow and invalid-value warnings of the casts are expected

# name in C++, numpy dtype, unsigned type of the same width, C++ literal suffix width (hex digits)
FORMATS = [
    ("Bf16", ml_dtypes.bfloat16, np.uint16, 4),
    ("F16", np.float16, np.uint16, 4),
    ("F8E4M3", ml_dtypes.float8_e4m3fn, np.uint8, 2),
    ("F8E5M2", ml_dtypes.float8_e5m2, np.uint8, 2),
]


def f32_from_bits(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def f32_bits(value):
    return int(np.array([value], dtype=np.float32).view(np.uint32)[0])


def exact_f32(value):
    """`value` (a Python float) as fp32, asserting the conversion is exact (midpoints must be)."""
    f = np.float32(value)
    assert float(f) == value, value
    return f


def finite_values(dtype, uint):
    """All non-negative finite values of the format, ascending, with their bit patterns."""
    width = np.iinfo(uint).bits
    patterns = np.arange(0, 1 << (width - 1), dtype=np.uint64).astype(uint)
    values = patterns.view(dtype).astype(np.float64)
    keep = np.isfinite(values)
    return patterns[keep], values[keep]


def encode_inputs(dtype, uint):
    """Interesting fp32 inputs for one format, each with a description."""
    _, values = finite_values(dtype, uint)
    info = ml_dtypes.finfo(dtype)
    max_finite = float(info.max)
    ulp_at_max = values[-1] - values[-2]
    inputs = []

    def add(value, what):
        inputs.append((exact_f32(value), what))

    def add_tie(lower, upper, what, direction=""):
        mid = (lower + upper) / 2
        add(mid, f"tie {what}" + (f" (to even: {direction})" if direction else ""))
        f = exact_f32(mid)
        inputs.append((np.nextafter(f, np.float32(-np.inf)), f"just below tie {what}"))
        inputs.append((np.nextafter(f, np.float32(np.inf)), f"just above tie {what}"))

    add(0.0, "zero")
    add(1.0, "one")
    one = np.searchsorted(values, 1.0)
    add_tie(values[one], values[one + 1], "1 | 1+ulp", "down")
    add_tie(values[one + 1], values[one + 2], "1+ulp | 1+2ulp", "up")
    add(float(info.smallest_subnormal), "smallest subnormal")
    add_tie(0.0, values[1], "0 | smallest subnormal", "down")
    add_tie(values[1], values[2], "subnormal 1 | 2 units", "up")
    add_tie(values[2], values[3], "subnormal 2 | 3 units", "down")
    largest_subnormal = values[np.searchsorted(values, float(info.smallest_normal)) - 1]
    add(largest_subnormal, "largest subnormal")
    add(float(info.smallest_normal), "smallest normal")
    add_tie(largest_subnormal, float(info.smallest_normal), "largest subnormal | smallest normal", "up")
    add(max_finite, "largest finite")
    add_tie(values[-2], max_finite, "below largest finite")
    add_tie(max_finite, max_finite + ulp_at_max, "largest finite | overflow")
    if 2 * max_finite < float(np.finfo(np.float32).max):
        add(2 * max_finite, "overflow: twice the largest finite")
    inputs.append((np.float32(np.finfo(np.float32).max), "overflow: fp32 max"))
    inputs.append((np.float32(np.inf), "infinity"))
    inputs.append((f32_from_bits(0x00000001), "fp32 smallest subnormal"))
    inputs.append((f32_from_bits(0x007FFFFF), "fp32 largest subnormal"))

    # Log-uniform random values over the format's range (and a little beyond at both ends).
    rng = np.random.default_rng(20240607)
    low = np.log2(float(info.smallest_subnormal) / 4)
    high = min(np.log2(max_finite * 2), np.log2(float(np.finfo(np.float32).max)))
    for value in np.exp2(rng.uniform(low, high, 24)).astype(np.float32):
        inputs.append((value, "random"))

    with_negatives = []
    for value, what in inputs:
        with_negatives.append((value, what))
        with_negatives.append((-value, what))
    for bits, what in [(0x7FC00000, "quiet NaN"), (0xFFC00000, "negative quiet NaN"),
                       (0x7F800001, "signalling NaN, low payload"), (0x7FA00000, "signalling NaN, high payload"),
                       (0xFF800001, "negative signalling NaN"), (0x7FFFFFFF, "NaN, all payload bits"),
                       (0x7FC00001, "quiet NaN with low payload")]:
        with_negatives.append((f32_from_bits(bits), what))
    return with_negatives


def decode_inputs(uint, width_hex):
    """Every pattern of an 8-bit format; for 16-bit formats, the special ones and some random ones."""
    width = np.iinfo(uint).bits
    if width == 8:
        return list(range(256))
    patterns = [0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x3C00, 0x3F80, 0xBF80, 0x4000, 0x0080, 0x0400, 0x03FF,
                0x007F, 0x7BFF, 0x7F7F, 0x7C00, 0xFC00, 0x7F80, 0xFF80, 0x7C01, 0x7E00, 0x7FFF, 0xFE00, 0xFC01,
                0x7F81, 0x7FC0, 0xFFC0, 0xFF81, 0x7D00, 0x7FA0]
    rng = np.random.default_rng(7)
    patterns += [int(p) for p in rng.integers(0, 1 << 16, 24)]
    return sorted(set(patterns))


def main():
    print("// Generated by tests/unit/isa/gen_number_format_vectors.py "
          f"({', '.join(PINNED)}); do not edit by hand.")
    print("// clang-format off")
    for name, dtype, uint, width_hex in FORMATS:
        source = "numpy" if dtype is np.float16 else "ml_dtypes"
        print(f"\n/// fp32 -> {name} ({source}).")
        print(f"constexpr EncodeVector k{name}Encode[] = {{")
        for value, what in encode_inputs(dtype, uint):
            encoded = int(np.array([value], dtype=np.float32).astype(dtype).view(uint)[0])
            print(f"  {{0x{f32_bits(value):08X}u, 0x{encoded:0{width_hex}X}u}}, // {float(value):.9g}: {what}")
        print("};")
        print(f"\n/// {name} -> fp32 ({source}).")
        print(f"constexpr DecodeVector k{name}Decode[] = {{")
        patterns = decode_inputs(uint, width_hex)
        decoded = np.array(patterns, dtype=np.uint64).astype(uint).view(dtype).astype(np.float32).view(np.uint32)
        for pattern, bits in zip(patterns, decoded):
            value = float(f32_from_bits(int(bits)))
            print(f"  {{0x{pattern:0{width_hex}X}u, 0x{int(bits):08X}u}}, // {value:.9g}")
        print("};")
    print("// clang-format on")


if __name__ == "__main__":
    main()
