// A plugin whose kernel takes a name the library already has ("add"): loading it must fail, naming both places.

#include "tessera/dsl/tsr.h"

namespace {

using namespace tsr;

const Registration registration{{
    .name = "add",
    .summary = "a second kernel called add",
    .params = {{"M", 128}},
    .signature = [](const Params &p) { return std::vector<TensorSpec>{output("c", {p["M"], 128}, f32)}; },
    .body = body([](Hbm c) { store(c.tile(0, 0, {128, 128}), zeros<f32>({128, 128})); }),
}};

} // namespace
