# The hardware backends: each library kernel's emitted NKI and Pallas modules, checked with what runs offline
# (docs/backends.md). Pallas runs under the real JAX from PyPI, in the virtual environment the backends/venv
# fixture makes (scripts/backend-venv.sh, versions pinned in hw-backends/check/requirements.txt); NKI cannot be
# installed off a Neuron host, so its modules are compiled by Python, checked against the NKI 0.6 API manifest, and
# run on Tessera's NumPy model of the NKI calls they use (hw-backends/check/nki_model: not NKI).
# The sanitizer build of scripts/test.sh names the release build's environment: the same pinned packages, made once.
set(TESSERA_BACKEND_VENV ${PROJECT_BINARY_DIR}/backend-venv CACHE PATH
    "The Python environment of the backend checks (made by the backends/venv test when missing or stale)")
set(BACKEND_VENV ${TESSERA_BACKEND_VENV})
set(BACKEND_WORK ${PROJECT_BINARY_DIR}/backend-checks)
set(check_kernel ${PROJECT_SOURCE_DIR}/hw-backends/check/check_kernel.sh)
add_test(NAME backends/venv COMMAND ${PROJECT_SOURCE_DIR}/scripts/backend-venv.sh ${BACKEND_VENV})
set_tests_properties(backends/venv PROPERTIES FIXTURES_SETUP backend_venv LABELS backends TIMEOUT 1200)

# The library kernels: kernels/*.cpp named in lower case (the others are the helpers they share).
file(GLOB kernel_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/*.cpp)
set(library_kernels)
foreach(source ${kernel_sources})
  get_filename_component(kernel ${source} NAME_WE)
  if(kernel MATCHES "^[a-z]")
    list(APPEND library_kernels ${kernel})
  endif()
endforeach()

# A kernel's Pallas module in `style` for `target` under interpret mode against the simulator, and exported for a
# TPU (check_kernel.sh pallas); further arguments go to tessera (--plugin ...).
# The check of `kernel` as the test backends/pallas-STYLE/NAME/TARGET (NAME: the kernel, or the kernel and a variant).
function(add_named_pallas_check name kernel style target)
  add_test(NAME backends/pallas-${style}/${name}/${target}
           COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python pallas ${kernel} ${target}
                   ${BACKEND_WORK} ${style} ${ARGN})
  set_tests_properties(backends/pallas-${style}/${name}/${target} PROPERTIES FIXTURES_REQUIRED backend_venv
                       LABELS backends)
endfunction()
function(add_pallas_check kernel style target)
  add_named_pallas_check(${kernel} ${kernel} ${style} ${target} ${ARGN})
endfunction()

# Pallas in both styles: manual (the simulated program, statement by statement) and auto (the grid style where the
# kernel's loops are a grid, which compiler/test/Backends/pallas-grid.test lists, else manual again).
foreach(kernel ${library_kernels})
  foreach(style manual auto)
    add_pallas_check(${kernel} ${style} tpu-v5e)
  endforeach()
  foreach(target trn1 trn2)
    add_test(NAME backends/nki/${kernel}/${target}
             COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki ${kernel} ${target} ${BACKEND_WORK})
    set_tests_properties(backends/nki/${kernel}/${target} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
  endforeach()
endforeach()
# A second TPU generation for the kernels of each kind: elementwise, row-wise, matmul.
foreach(kernel add softmax matmul_tiled matmul_blocked)
  add_pallas_check(${kernel} auto tpu-v6e)
endforeach()
# The kernels' variants that emit other instructions (DMA transposes, bn_stats/bn_aggr, FP8 double row, causal
# masks with affine_select, GELU gates, 1x1 and strided convolutions), each on the targets where it exists: NKI on
# the NeuronCores, Pallas (auto style) on tpu-v5e. layernorm form=2 is NeuronCore only, FP8 double row trn2 on.
foreach(variant "transpose2d engine=2 trn1,trn2,tpu-v5e" "layernorm form=2 trn1,trn2" "matmul_fp8 rows=2 trn2"
                "attention_fwd causal=1 trn1,trn2,tpu-v5e" "mlp act=2 trn1,trn2,tpu-v5e" "conv2d k=1 trn1,trn2,tpu-v5e"
                "conv2d stride=2 trn1,trn2,tpu-v5e" "gelu form=2 trn1,trn2,tpu-v5e")
  separate_arguments(variant)
  list(GET variant 0 kernel)
  list(GET variant 1 param)
  list(GET variant 2 targets)
  string(REPLACE "," ";" targets ${targets})
  foreach(target ${targets})
    if(target MATCHES "^tpu")
      set(name backends/pallas-auto/${kernel}-${param}/${target})
      set(how pallas ${kernel} ${target} ${BACKEND_WORK} auto)
    else()
      set(name backends/nki/${kernel}-${param}/${target})
      set(how nki ${kernel} ${target} ${BACKEND_WORK} -)
      list(APPEND nki_variants ${kernel}:${param})
    endif()
    add_test(NAME ${name} COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python ${how}
                                  --param ${param})
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
  endforeach()
endforeach()
# A test plugin's kernel on both device backends: Pallas in both styles under interpret mode on tpu-v5e, and the
# NKI model on the NeuronCores (the real TPU compiler is below). Further arguments go to tessera (--plugin ...).
# A plugin kernel's Pallas (both styles, tpu-v5e) and NKI (trn1, trn2) checks, named NAME: the kernel, or the kernel
# and a variant (plugin_x/dtype=2) when one kernel is checked with several parameters.
function(add_named_plugin_backend_tests name kernel)
  foreach(style manual auto)
    add_named_pallas_check(${name} ${kernel} ${style} tpu-v5e ${ARGN})
  endforeach()
  foreach(target trn1 trn2)
    add_test(NAME backends/nki/${name}/${target}
             COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki ${kernel} ${target}
                     ${BACKEND_WORK} - ${ARGN})
    set_tests_properties(backends/nki/${name}/${target} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
  endforeach()
endfunction()
function(add_plugin_backend_tests kernel)
  add_named_plugin_backend_tests(${kernel} ${kernel} ${ARGN})
endfunction()
# FP16 arithmetic (tests/plugins/fp16.cpp): NKI where engines take FP16; Pallas where the compiler converts around
# every op (FP16 is storage only on a TPU), and compiled by the real TPU compiler for v5e and v6e below.
set(fp16_plugin --plugin $<TARGET_FILE:tessera-test-plugin-fp16>)
add_plugin_backend_tests(plugin_fp16 ${fp16_plugin})
# Numbers as operands and broadcast windows (tests/plugins/broadcast.cpp): Pallas copies the one row or column and
# jnp.broadcast_to's it, with Python floats; NKI has NkiTensor.broadcast on the HBM window and tensor_scalar
# immediates.
set(broadcast_plugin --plugin $<TARGET_FILE:tessera-test-plugin-broadcast>)
add_plugin_backend_tests(plugin_broadcast ${broadcast_plugin})
# Loop indices divided by constants (tests/plugins/index_division.cpp): NKI writes the offsets each iteration has,
# Pallas the floor divisions (// on the loop's index).
set(index_division_plugin --plugin $<TARGET_FILE:tessera-test-plugin-index-division>)
add_plugin_backend_tests(plugin_index_division ${index_division_plugin})
# Tiles sliced along the partition dimension (tests/plugins/partition_slice.cpp): NKI slices a tile's partitions as
# t[32:64, 0:512]; Pallas slices the ref's rows.
set(partition_slice_plugin --plugin $<TARGET_FILE:tessera-test-plugin-partition-slice>)
add_plugin_backend_tests(plugin_partition_slice ${partition_slice_plugin})
# An HBM scratch tensor (tests/plugins/hbm_scratch.cpp): NKI makes it with nl.ndarray(..., buffer=nl.shared_hbm) and
# does not return it; Pallas, whose Mosaic allocates scratch in VMEM and SMEM only, makes it an output in HBM
# (pl.ANY) that the module's function drops.
set(hbm_scratch_plugin --plugin $<TARGET_FILE:tessera-test-plugin-hbm-scratch>)
add_plugin_backend_tests(plugin_hbm_scratch ${hbm_scratch_plugin})
# N-D HBM tensors (tests/plugins/batched.cpp, 3-D and 4-D): NKI indexes them x[b, rows, columns]; Pallas passes them
# with BlockSpecs whose leading dimensions are squeezed (None) in the grid style, and reshaped to their [B * S, D]
# matrices (the outputs back) in the manual style.
set(batched_plugin --plugin $<TARGET_FILE:tessera-test-plugin-batched>)
add_plugin_backend_tests(plugin_batched ${batched_plugin})
add_plugin_backend_tests(plugin_batched_heads ${batched_plugin})
# HBM windows moved transposed (tests/plugins/transposed_window.cpp): NKI writes nisa.dma_transpose for trn2's bf16
# loads and a dma_copy of the window's x[...].permute((1, 0)) otherwise; Pallas moves the block as it lies and
# transposes it on chip. f32 (dtype=1) and bf16 (dtype=2).
set(transposed_window_plugin --plugin $<TARGET_FILE:tessera-test-plugin-transposed-window>)
foreach(dtype 1 2)
  add_named_plugin_backend_tests(plugin_transposed_window/dtype=${dtype} plugin_transposed_window
                                 ${transposed_window_plugin} --param dtype=${dtype})
endforeach()
# Windows of one row, tensors of one column (the NKI backend tells a transposed window from rows by which reading
# fits the tensor).
add_named_plugin_backend_tests(plugin_transposed_window/rows=1 plugin_transposed_window ${transposed_window_plugin}
                               --param rows=1)
add_named_plugin_backend_tests(plugin_transposed_window/D=1 plugin_transposed_window ${transposed_window_plugin}
                               --shape D=1)
# Tiles broadcast on chip (tests/plugins/tile_broadcast.cpp): NKI copies a row onto partitions with one
# nisa.nc_stream_shuffle per quadrant and a column along the free dimension with tensor_copy of t[:, 0:1].broadcast;
# Pallas writes jnp.broadcast_to.
set(tile_broadcast_plugin --plugin $<TARGET_FILE:tessera-test-plugin-tile-broadcast>)
add_plugin_backend_tests(plugin_tile_broadcast ${tile_broadcast_plugin})
# int8, int16 and uint16 tensors (tests/plugins/int_dtypes.cpp): nl.int8/nl.int16/nl.uint16 in NKI, the NumPy
# model converting to integers as the simulator does (rounded, saturated); jnp.int8/int16/uint16 in Pallas, whose
# VPU arithmetic works on f32 conversions of them.
set(int_dtypes_plugin --plugin $<TARGET_FILE:tessera-test-plugin-int-dtypes>)
add_plugin_backend_tests(plugin_int_dtypes ${int_dtypes_plugin})
# nc_stream_shuffle (tests/plugins/stream_shuffle.cpp, NeuronCore only): NKI's call with its shuffle_mask list, run
# by the NKI model, which applies the instruction's partition rules.
foreach(target trn1 trn2)
  add_test(NAME backends/nki/plugin_stream_shuffle/${target}
           COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki plugin_stream_shuffle
                   ${target} ${BACKEND_WORK} - --plugin $<TARGET_FILE:tessera-test-plugin-stream-shuffle>)
  set_tests_properties(backends/nki/plugin_stream_shuffle/${target}
                       PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
endforeach()
# Access patterns (tests/plugins/access_pattern.cpp): NKI's NkiTensor.ap on the operands of
# tensor_copy, tensor_reduce (axis the pattern's last dimensions), tensor_tensor, tensor_scalar and activation, run
# by the NKI model.
foreach(target trn1 trn2)
  foreach(kernel plugin_access_pattern plugin_access_pattern_isa plugin_access_pattern_elementwise
                 plugin_access_pattern_columns plugin_access_pattern_mxu plugin_access_pattern_grid)
    add_test(NAME backends/nki/${kernel}/${target}
             COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki ${kernel} ${target}
                     ${BACKEND_WORK} - --plugin $<TARGET_FILE:tessera-test-plugin-access-pattern>)
    set_tests_properties(backends/nki/${kernel}/${target} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
  endforeach()
endforeach()
# Interpret mode rounds each operation as written under run.py's XLA flags (no FMA contraction, no excess
# precision), as the simulator does; without them, on a host with FMA, it does not (the check can fail).
add_test(NAME backends/interpret-rounds-as-written
         COMMAND sh -c "$0 $1 && if grep -qw fma /proc/cpuinfo; then if $0 $1 --without-flags; then echo 'without the flags interpret mode should contract: the check cannot fail here'; exit 1; fi; fi"
                 ${BACKEND_VENV}/bin/python ${PROJECT_SOURCE_DIR}/hw-backends/check/interpret_rounding.py)
set_tests_properties(backends/interpret-rounds-as-written PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The deploy runner compares outputs as the simulator does: equal infinities agree, NaN agrees with nothing, an
# infinity hides no error elsewhere (run.py once called equal infinities a mismatch).
add_test(NAME backends/runner-compare
         COMMAND ${BACKEND_VENV}/bin/python ${PROJECT_SOURCE_DIR}/hw-backends/check/runner_compare.py)
set_tests_properties(backends/runner-compare PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)

# The rounding a kernel does in place of float16 stores (_round_to_f16), against NumPy's float16 on 1.5 million
# values; and the check fails when the rounding is made round-half-up instead of to even.
add_test(NAME backends/round-to-f16
         COMMAND sh -c "set -e; $0 compile plugin_fp16 $1 $2 --target tpu-v5e --emit pallas > $3/round-to-f16.py
                        $4 $5 $3/round-to-f16.py
                        sed 's/bits + 0xFFF + ((bits >> 13) \\& 1)/bits + 0x1000/' $3/round-to-f16.py > $3/round-half-up.py
                        grep -q 'bits + 0x1000' $3/round-half-up.py
                        if $4 $5 $3/round-half-up.py; then echo 'a round-half-up _round_to_f16 passed'; exit 1; fi"
                 $<TARGET_FILE:tessera> ${fp16_plugin} ${BACKEND_WORK} ${BACKEND_VENV}/bin/python
                 ${PROJECT_SOURCE_DIR}/hw-backends/check/round_to_f16.py)
set_tests_properties(backends/round-to-f16 PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The real TPU compiler: PyPI's libtpu (the version jax[tpu] pins) compiles deviceless on this CPU-only machine.
# Labelled libtpu as well: the sanitizer pass of scripts/test.sh skips them (what they run of Tessera's, emitting
# the module, the Pallas checks of the same kernels run under the sanitizers; the rest is libtpu's own time).
# Every library kernel's Pallas module, both styles, for tpu-v5e and tpu-v6e; the other generations at one shape
# each (mlp in the manual style, rmsnorm as a grid). Shapes are the kernels' defaults (docs/backends.md, "Real TPU
# compilation", has every compile time: mamba_scan's is the longest, about 20 s).
# Known failures, asserted as such: the compile must fail with this error at a kernel line, so that a fix shows
# (tpu_compile_error_KERNEL; conv2d's unaligned DMA windows were one until tile-legalize-for-tpu aligned them).
function(add_tpu_compile_test kernel style target) # further arguments go to tessera deploy
  set(name backends/tpu-compile-${style}/${kernel}/${target})
  add_test(NAME ${name}
           COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python tpu-compile ${kernel} ${target}
                   ${BACKEND_WORK} ${style} ${tpu_compile_args_${kernel}} ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS "backends;libtpu")
  if(DEFINED tpu_compile_error_${kernel})
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "EXPECT_COMPILE_ERROR=${tpu_compile_error_${kernel}}")
  endif()
endfunction()
foreach(kernel ${library_kernels})
  foreach(style manual auto)
    foreach(target tpu-v5e tpu-v6e)
      add_tpu_compile_test(${kernel} ${style} ${target})
    endforeach()
  endforeach()
endforeach()
# On a TPU an access pattern is a relayout of each row (a reshape, an index and a transpose of a window of it): the
# Pallas module in both styles under interpret mode, and compiled by the real TPU compiler (v5e and v6e; the auto
# style, whose grid a pattern's moving offset must stay out of, on v5e).
foreach(kernel plugin_access_pattern plugin_access_pattern_elementwise plugin_access_pattern_columns
               plugin_access_pattern_mxu plugin_access_pattern_grid)
  foreach(style manual auto)
    add_pallas_check(${kernel} ${style} tpu-v5e --plugin $<TARGET_FILE:tessera-test-plugin-access-pattern>)
  endforeach()
  foreach(target tpu-v5e tpu-v6e)
    add_tpu_compile_test(${kernel} manual ${target} --plugin $<TARGET_FILE:tessera-test-plugin-access-pattern>)
  endforeach()
  add_tpu_compile_test(${kernel} auto tpu-v5e --plugin $<TARGET_FILE:tessera-test-plugin-access-pattern>)
endforeach()
foreach(style manual auto)
  foreach(target tpu-v5e tpu-v6e)
    add_tpu_compile_test(plugin_fp16 ${style} ${target} ${fp16_plugin})
    add_tpu_compile_test(plugin_broadcast ${style} ${target} ${broadcast_plugin})
    add_tpu_compile_test(plugin_index_division ${style} ${target} ${index_division_plugin})
    add_tpu_compile_test(plugin_partition_slice ${style} ${target} ${partition_slice_plugin})
    add_tpu_compile_test(plugin_hbm_scratch ${style} ${target} ${hbm_scratch_plugin})
    add_tpu_compile_test(plugin_batched ${style} ${target} ${batched_plugin})
    add_tpu_compile_test(plugin_batched_heads ${style} ${target} ${batched_plugin})
    add_tpu_compile_test(plugin_int_dtypes ${style} ${target} ${int_dtypes_plugin})
    add_tpu_compile_test(plugin_tile_broadcast ${style} ${target} ${tile_broadcast_plugin})
    add_tpu_compile_test(plugin_transposed_window ${style} ${target} ${transposed_window_plugin} --param dtype=2)
  endforeach()
endforeach()
foreach(target tpu-v4 tpu-v5p tpu-7x)
  add_tpu_compile_test(mlp manual ${target})
  add_tpu_compile_test(rmsnorm auto ${target})
endforeach()
# An SPMD launch where the simulator splits it between a megacore's two TensorCores: its grid axes are PARALLEL
# dimensions, under interpret mode (against the two cores' outputs) and the real compiler.
foreach(target tpu-v4 tpu-v5p)
  add_tpu_compile_test(add_spmd auto ${target})
endforeach()
add_pallas_check(add_spmd auto tpu-v5p)
# matmul_blocked at 2048^3 with its default blocks, both styles: its buffers pass v5e's 16 MiB default scoped VMEM,
# so the module raises vmem_limit_bytes (the unrolled module of before took 39.5 MiB and 30 s of Mosaic; the loops
# take about a second).
foreach(style manual auto)
  set(name backends/tpu-compile-${style}/matmul_blocked-2048/tpu-v5e)
  add_test(NAME ${name}
           COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python tpu-compile matmul_blocked tpu-v5e
                   ${BACKEND_WORK} ${style} --shape M=2048,N=2048,K=2048)
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS "backends;libtpu")
endforeach()
# conv2d at stride 2 reads each phase of its input with a lane-strided vector load after a staging DMA, which Mosaic
# does not implement: a known failure, asserted as such (its own folder: check_kernel.sh names it by the variant).
set(name backends/tpu-compile-manual/conv2d-stride2/tpu-v5e)
add_test(NAME ${name}
         COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python tpu-compile conv2d tpu-v5e
                 ${BACKEND_WORK} manual --param stride=2)
set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS "backends;libtpu"
                     ENVIRONMENT "EXPECT_COMPILE_ERROR=Stride on last dim is not 1")
# run.py --estimate: libtpu's static cycle estimate beside Tessera's. The grid module of add gets one (exit 0); on
# the manual module (a DMA semaphore waited on in a pl.loop) libtpu 0.0.50.1's profiler aborts the whole process
# ("No DMA issue node found for sync flag"): the runner, which estimates in a child process, says so, still compiles,
# and exits 1 (a libtpu that fixes it fails this test, so that the fix shows); on v4 it refuses (exit 2).
add_test(NAME backends/tpu-estimate
         COMMAND sh -c "set -eu; T=$0 PY=$1 D=$2
           $T deploy add --target tpu-v5e --pallas-style grid -o $D/estimate-grid > /dev/null
           $PY $D/estimate-grid/run.py --estimate > $D/estimate-grid.log 2>&1
           grep -q 'libtpu static estimate  [0-9]* cycles' $D/estimate-grid.log
           $T deploy add --target tpu-v5e --pallas-style manual -o $D/estimate-manual > /dev/null
           st=0; $PY $D/estimate-manual/run.py --estimate > $D/estimate-manual.log 2>&1 || st=$?
           [ $st = 1 ] || { echo manual: exit $st, expected 1; cat $D/estimate-manual.log; exit 1; }
           grep -q \"static profile failed, and libtpu aborted the process: INTERNAL: No DMA issue node\" $D/estimate-manual.log
           grep -q 'compile for v5e=1x1 (TPU v5 lite): ok' $D/estimate-manual.log
           $T deploy add --target tpu-v4 -o $D/estimate-v4 > /dev/null
           st=0; $PY $D/estimate-v4/run.py --estimate > $D/estimate-v4.log 2>&1 || st=$?
           [ $st = 2 ] || { echo v4: exit $st, expected 2; exit 1; }"
         $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python ${BACKEND_WORK})
set_tests_properties(backends/tpu-estimate PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# tessera deploy --check: the bundle's own checks from the CLI. conv2d compiles and matches under interpret mode
# (exit 0); at stride 2 the compile fails (exit 1) with the kernel line; --json keeps stdout to the JSON; --timeout
# covers the check (exit 3, the runner killed: add's run takes 0.1 s here, its two checks 2.6 s; a sanitizer build
# may spend the second on the run itself, which exits 3 too).
add_test(NAME backends/deploy-check
         COMMAND sh -c "set -eu; T=$0 PY=$1 D=$2
           $T deploy conv2d --target tpu-v5e -o $D/check-ok --check compile --check interpret --python $PY > $D/check-ok.log
           grep -q '^  check compile: ok' $D/check-ok.log && grep -q '^  check interpret: ok' $D/check-ok.log
           st=0; $T deploy conv2d --target tpu-v5e --param stride=2 -o $D/check-fail --check compile --python $PY --json \
             > $D/check-fail.json 2> $D/check-fail.log || st=$?
           [ $st = 1 ] || { echo exit $st, expected 1; exit 1; }
           grep -q 'conv2d.cpp:[0-9]*: error: .*Stride on last dim' $D/check-fail.log
           $PY -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j[\"checks\"] == {\"compile\": False} and not j[\"ok\"], j' $D/check-fail.json
           st=0; $T deploy add --target tpu-v5e -o $D/check-timeout --check compile --check interpret --python $PY \
             --timeout 1 > /dev/null 2> $D/check-timeout.log || st=$?
           [ $st = 3 ] || { echo --timeout: exit $st, expected 3; exit 1; }
           grep -q 'stopped by --timeout (1 s)' $D/check-timeout.log
           if ! grep -q 'while --check compile ran: the runner was killed' $D/check-timeout.log; then
             grep -q 'stopped by --timeout (1 s) while compiling\\|instructions retired' $D/check-timeout.log
             echo note: the deadline passed before the check started, as it may in a sanitizer build
           fi
           echo deploy --check: ok"
         $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python ${BACKEND_WORK})
set_tests_properties(backends/deploy-check PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The target files' [libtpu] figures (default scoped VMEM, the most a kernel may have, the topology) are what libtpu
# does: checked against it.
file(GLOB tpu_target_files ${PROJECT_SOURCE_DIR}/isa/targets/tpu-*.toml)
add_test(NAME backends/libtpu-limits
         COMMAND ${BACKEND_VENV}/bin/python ${PROJECT_SOURCE_DIR}/hw-backends/check/libtpu_vmem_limits.py ${tpu_target_files})
set_tests_properties(backends/libtpu-limits PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# What Mosaic compiles of an access pattern's Pallas forms (a row walked in another order: reshape and transpose,
# reshape and index, grouped reductions) and what it refuses (a strided slice), as docs/dsl.md says.
add_test(NAME backends/mosaic-relayouts
         COMMAND ${BACKEND_VENV}/bin/python ${PROJECT_SOURCE_DIR}/hw-backends/check/mosaic_relayouts.py)
set_tests_properties(backends/mosaic-relayouts PROPERTIES FIXTURES_REQUIRED backend_venv LABELS "backends;libtpu")
# The TPU checks can fail: a wrong [libtpu] figure, a module whose VMEM limit is too small, a deleted .wait()
# (check_dma_waits.py; and what interpret mode does with it, asserted as docs/backends.md says).
add_test(NAME backends/tpu-checks-catch-mistakes
         COMMAND ${PROJECT_SOURCE_DIR}/hw-backends/check/tpu_checks_catch_mistakes.sh $<TARGET_FILE:tessera>
                 ${BACKEND_VENV}/bin/python ${BACKEND_WORK})
set_tests_properties(backends/tpu-checks-catch-mistakes PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The Pallas emitter checked by difference (tests/differential/README.md): the random kernels of seeds 1..200,
# simulated on tpu-v5e and written in every Pallas style (tessera-difftest --pallas), each module run under Pallas
# interpret mode with race detection and compared with the simulator's outputs (pallas_differential.py: bit-exact,
# or within the dtype's tolerance where the module has exp, a sum or a matmul); and three mistakes planted in
# emitted modules, each of which the comparison must catch. The sanitizer pass (TESSERA_BACKEND_CHECKS=static,
# scripts/test.sh) simulates and writes the modules, and leaves their runs under JAX to the release pass.
set(pallas_differential ${PROJECT_SOURCE_DIR}/hw-backends/check/pallas_differential.py)
foreach(seeds 1..100 101..200)
  string(REPLACE ".." "-" range ${seeds})
  add_test(NAME backends/pallas-differential/${range}
           COMMAND sh -c "rm -rf \"$2\" && \"$0\" --seeds $3 --target tpu-v5e --pallas \"$2\" --pallas-style manual,grid,auto && { [ \"$TESSERA_BACKEND_CHECKS\" = static ] || \"$1\" \"$4\" \"$2\"; }"
                   $<TARGET_FILE:tessera-difftest> ${BACKEND_VENV}/bin/python ${BACKEND_WORK}/pallas-differential-${range}
                   ${seeds} ${pallas_differential})
  set_tests_properties(backends/pallas-differential/${range} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
endforeach()
add_test(NAME backends/pallas-differential/catches-mistakes
         COMMAND ${BACKEND_VENV}/bin/python ${PROJECT_SOURCE_DIR}/hw-backends/check/pallas_differential_mutations.py
                 $<TARGET_FILE:tessera-difftest> ${BACKEND_WORK}/pallas-differential-mutations)
set_tests_properties(backends/pallas-differential/catches-mistakes PROPERTIES FIXTURES_REQUIRED backend_venv
                     LABELS backends)
# run.py's record -> tessera calibrate (an interpret-mode record given a device time; the same record as the host's
# wall clock, refused).
add_test(NAME backends/calibrate-roundtrip
         COMMAND ${PROJECT_SOURCE_DIR}/hw-backends/check/calibrate_roundtrip.sh $<TARGET_FILE:tessera>
                 ${BACKEND_VENV}/bin/python ${BACKEND_WORK})
set_tests_properties(backends/calibrate-roundtrip PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# An NKI bundle's device run without a Trainium: the environment run.py sets (--dry-run), the run on the NumPy model
# with stand-ins for nrtpy and neuron-explorer, the records' measured_by, and calibrate skipping the wall clock.
add_test(NAME backends/nki-device-run
         COMMAND ${PROJECT_SOURCE_DIR}/hw-backends/check/nki_device_run.sh $<TARGET_FILE:tessera>
                 ${BACKEND_VENV}/bin/python ${BACKEND_WORK})
set_tests_properties(backends/nki-device-run PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The NKI checks can fail: a swapped operand and a misspelt keyword are caught.
add_test(NAME backends/nki-checks-catch-mistakes
         COMMAND ${PROJECT_SOURCE_DIR}/hw-backends/check/model_catches_mistakes.sh $<TARGET_FILE:tessera>
                 ${BACKEND_VENV}/bin/python ${BACKEND_WORK})
set_tests_properties(backends/nki-checks-catch-mistakes PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The manifest's rules (NKI's ALU and activation tables, engines, what each NeuronCore generation lacks, memories,
# tile shapes), each with its documentation page: every rule rejects a fixture made to break it
# (hw-backends/check/fixtures), emitted kernels given one mistake each are rejected, the NumPy model takes NKI 0.6's
# parameters and refuses what the hardware lacks, and every library kernel and variant emitted for trn1, trn2 and
# trn3 keeps every rule (check_nki_rules.py).
list(REMOVE_DUPLICATES nki_variants)
set(check_nki_rules ${PROJECT_SOURCE_DIR}/hw-backends/check/check_nki_rules.py)
add_test(NAME backends/nki-rules/fixtures COMMAND ${BACKEND_VENV}/bin/python ${check_nki_rules} fixtures)
add_test(NAME backends/nki-rules/mutations
         COMMAND ${BACKEND_VENV}/bin/python ${check_nki_rules} mutations $<TARGET_FILE:tessera>
                 ${BACKEND_WORK}/nki-rules-mutations)
add_test(NAME backends/nki-rules/model COMMAND ${BACKEND_VENV}/bin/python ${check_nki_rules} model)
add_test(NAME backends/nki-rules/emitted
         COMMAND ${BACKEND_VENV}/bin/python ${check_nki_rules} emitted $<TARGET_FILE:tessera>
                 ${BACKEND_WORK}/nki-rules-emitted ${nki_variants})
set_tests_properties(backends/nki-rules/fixtures backends/nki-rules/mutations backends/nki-rules/model
                     backends/nki-rules/emitted PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
# The TPU's relayout cost (xlu_relayout_cycles_per_vreg) against libtpu's static estimate of eleven relayouts, on
# v5e and v6e (their figures differ; v5p's and 7x's fits equal them): fails when a hold-out error passes 25% or the
# file's figure moves 10% from the fit.
foreach(generation v5e v6e)
  add_test(NAME backends/libtpu-relayout-fit/tpu-${generation}
           COMMAND ${BACKEND_VENV}/bin/python ${PROJECT_SOURCE_DIR}/hw-backends/check/tpu_relayout_fit.py
                   ${PROJECT_SOURCE_DIR}/isa/targets/tpu-${generation}.toml)
  set_tests_properties(backends/libtpu-relayout-fit/tpu-${generation} PROPERTIES FIXTURES_REQUIRED backend_venv
                       LABELS "backends;libtpu")
endforeach()
