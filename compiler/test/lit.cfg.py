# lit configuration for the compiler's FileCheck tests: one .mlir file per pass, beside its siblings.
import os
import lit.formats

config.name = "Tessera compiler"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]
config.environment["TESSERA_TARGET_PATH"] = config.targets_dir
config.substitutions.append(("tessera-opt", config.tessera_opt))
config.substitutions.append(("%tessera", config.tessera))
# tests/plugins/fp16.cpp: FP16 tensors and arithmetic.
config.substitutions.append(("%fp16_plugin", config.fp16_plugin))
# tests/plugins/access_pattern.cpp: access patterns (Tile::ap) over tiles.
config.substitutions.append(("%access_pattern_plugin", config.access_pattern_plugin))
config.substitutions.append(("%misuse_plugin", config.misuse_plugin))
# tests/plugins/index_division.cpp: loop indices divided by constants (t / 2, t % 2).
config.substitutions.append(("%index_division_plugin", config.index_division_plugin))
# tests/plugins/partition_slice.cpp: tiles sliced along the partition dimension.
config.substitutions.append(("%partition_slice_plugin", config.partition_slice_plugin))
# tests/plugins/hbm_scratch.cpp: an HBM scratch tensor written and read back.
config.substitutions.append(("%hbm_scratch_plugin", config.hbm_scratch_plugin))
# tests/plugins/int_dtypes.cpp: int8, int16 and uint16 tensors.
config.substitutions.append(("%int_dtypes_plugin", config.int_dtypes_plugin))
# tests/plugins/stream_shuffle.cpp: partitions moved on chip with tsr::isa::nc_stream_shuffle.
config.substitutions.append(("%stream_shuffle_plugin", config.stream_shuffle_plugin))
# tests/plugins/batched.cpp: 3-D HBM tensors, the batch a loop index (x[b].tile(i, 0, ...)).
config.substitutions.append(("%batched_plugin", config.batched_plugin))
if config.sanitize.upper() in ("ON", "TRUE", "1", "YES"):
    config.available_features.add("asan")
config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, config.environment.get("PATH", "")])
