#pragma once
// The plain C++ references of my kernels: outputs from inputs, in double, from the values the kernel reads.

#include "tessera/dsl/Kernel.h"

#include <vector>

namespace my_kernels {

/// y = silu(a) * b = a / (1 + e^-a) * b, elementwise.
void swigluReference(const tsr::Params &p, const std::vector<tsr::HostTensor> &in, std::vector<tsr::HostTensor> &out);

/// c = relu(a_t^T @ w): a_t is [K, M], w is [K, N], c is [M, N].
void linearReluReference(const tsr::Params &p, const std::vector<tsr::HostTensor> &in,
                         std::vector<tsr::HostTensor> &out);

} // namespace my_kernels
