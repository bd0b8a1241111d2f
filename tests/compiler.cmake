# Tests of the layers that need MLIR: the DSL and compiler units, the lit tests of the passes, and end-to-end
# runs of the kernels through the tessera CLI.

# DSL and compiler units, plus end-to-end checks through the driver (they link the kernels, and libtessera.so).
tessera_unit_tests(compiler-tests "dsl;compiler;e2e;backends" Tessera TesseraKernels fmt::fmt nlohmann_json::nlohmann_json)
# The compiler's internal pieces without MLIR types (lib/Import/ForwardReferences.h) are tested directly too.
target_include_directories(compiler-tests PRIVATE ${PROJECT_SOURCE_DIR}/compiler/lib ${PROJECT_SOURCE_DIR}/hw-backends/lib
                                                 ${PROJECT_SOURCE_DIR}/nki-like-dsl/lib)
# LibraryKernelsTest runs `tessera list --json`.
target_compile_definitions(compiler-tests PRIVATE TESSERA_CLI="$<TARGET_FILE:tessera>" TESSERA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(compiler-tests tessera)
# PluginTest loads the plugins of tests/plugins, through the CLI and loadPlugin().
add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/plugins)
target_compile_definitions(compiler-tests PRIVATE
  TESSERA_TEST_PLUGIN="$<TARGET_FILE:tessera-test-plugin>"
  TESSERA_TEST_PLUGIN_DUPLICATE="$<TARGET_FILE:tessera-test-plugin-duplicate>"
  TESSERA_TEST_PLUGIN_EMPTY="$<TARGET_FILE:tessera-test-plugin-empty>"
  TESSERA_TEST_PLUGIN_UNDEFINED="$<TARGET_FILE:tessera-test-plugin-undefined>"
  TESSERA_TEST_PLUGIN_THROWING="$<TARGET_FILE:tessera-test-plugin-throwing>")
add_dependencies(compiler-tests tessera-test-plugin tessera-test-plugin-duplicate tessera-test-plugin-empty
                 tessera-test-plugin-undefined tessera-test-plugin-fp16 tessera-test-plugin-throwing
                 tessera-test-plugin-misuse tessera-test-plugin-index-division tessera-test-plugin-batched
                 tessera-test-plugin-partition-slice tessera-test-plugin-hbm-scratch tessera-test-plugin-int-dtypes
                 tessera-test-plugin-stream-shuffle tessera-test-plugin-access-pattern)
# HtmlReportTest decodes headless Chromium's screenshot of a report.
find_package(PNG REQUIRED)
target_link_libraries(compiler-tests PRIVATE PNG::PNG TesseraCompilerLibrary) # the compiler's internals too

# lit + FileCheck: one test file per pass in compiler/test/.
set(LIT_PY /usr/lib/llvm-19/build/utils/lit/lit.py)
set(TESSERA_LLVM_TOOLS_DIR /usr/lib/llvm-19/bin)
configure_file(${PROJECT_SOURCE_DIR}/compiler/test/lit.site.cfg.py.in ${PROJECT_BINARY_DIR}/compiler/test/lit.site.cfg.py @ONLY)
add_test(NAME lit COMMAND ${Python3_EXECUTABLE} ${LIT_PY} -v ${PROJECT_BINARY_DIR}/compiler/test)
set_tests_properties(lit PROPERTIES LABELS lit)

# The CLI: each kernel on each target at several shapes must report ok (exit 0).
set(e2e_runs
  "add trn1 M=128,N=128" "add trn2 M=256,N=1024" "add trn2 M=384,N=4096"
  "matmul trn1 M=128,N=512,K=128" "matmul trn1 M=256,N=1024,K=512" "matmul trn2 M=512,N=512,K=256"
  "matmul trn2 M=128,N=256,K=384" "matmul_tiled trn1 M=256,N=512,K=256" "matmul_tiled trn2 M=384,N=1024,K=128"
  "matmul_hoisted trn2 M=256,N=1024,K=256" "matmul_blocked_free trn1 M=256,N=1024,K=256"
  "matmul_blocked trn1 M=256,N=1024,K=256" "matmul_blocked trn2 M=512,N=512,K=384"
  "softmax trn1 R=128,C=64" "softmax trn2 R=256,C=512" "softmax trn2 R=512,C=2048")
# The kernels of issue #7 at their default shapes on the targets it names.
foreach(target trn1 trn2 tpu-v5e tpu-v6e)
  list(APPEND e2e_runs "rmsnorm ${target} R=512,C=1024" "layernorm ${target} R=512,C=1024"
       "gelu ${target} R=256,C=1024" "mlp ${target} T=512,D=512,F=1024")
endforeach()
# One test per "KERNEL TARGET SHAPE" argument: `tessera run` there exits 0 (tests/nki-tutorials.cmake uses it too).
function(add_e2e_runs)
  foreach(run ${ARGN})
    separate_arguments(parts UNIX_COMMAND "${run}")
    list(GET parts 0 kernel)
    list(GET parts 1 target)
    list(GET parts 2 shape)
    add_test(NAME "run/${kernel}/${target}/${shape}" COMMAND tessera run ${kernel} --target ${target} --shape ${shape} --json)
    set_tests_properties("run/${kernel}/${target}/${shape}" PROPERTIES LABELS e2e)
  endforeach()
endfunction()
add_e2e_runs(${e2e_runs})

# FP16 arithmetic (tests/plugins/fp16.cpp) on every family: native on a NeuronCore, converted around each op on a
# TPU, where FP16 is storage only. Exit 0: the outputs match the golden model and the reference.
foreach(target trn1 trn2 tpu-v4 tpu-v5e tpu-v6e)
  add_test(NAME run/plugin_fp16/${target}
           COMMAND tessera run plugin_fp16 --plugin $<TARGET_FILE:tessera-test-plugin-fp16> --target ${target} --json)
  set_tests_properties(run/plugin_fp16/${target} PROPERTIES LABELS e2e)
endforeach()
# Numbers as operands and broadcast windows (tests/plugins/broadcast.cpp) on every family: exit 0, the outputs match
# the golden model and the reference.
foreach(target trn1 trn2 tpu-v5e tpu-v6e)
  add_test(NAME run/plugin_broadcast/${target}
           COMMAND tessera run plugin_broadcast --plugin $<TARGET_FILE:tessera-test-plugin-broadcast> --target ${target}
                   --json)
  set_tests_properties(run/plugin_broadcast/${target} PROPERTIES LABELS e2e)
  # Loop indices divided by constants (tests/plugins/index_division.cpp): the same agreement.
  add_test(NAME run/plugin_index_division/${target}
           COMMAND tessera run plugin_index_division --plugin $<TARGET_FILE:tessera-test-plugin-index-division>
                   --target ${target} --json)
  set_tests_properties(run/plugin_index_division/${target} PROPERTIES LABELS e2e)
  # Tiles sliced along the partition dimension (tests/plugins/partition_slice.cpp): the same agreement.
  add_test(NAME run/plugin_partition_slice/${target}
           COMMAND tessera run plugin_partition_slice --plugin $<TARGET_FILE:tessera-test-plugin-partition-slice>
                   --target ${target} --json)
  set_tests_properties(run/plugin_partition_slice/${target} PROPERTIES LABELS e2e)
  # An HBM scratch tensor written by one loop and read back by the next (tests/plugins/hbm_scratch.cpp).
  add_test(NAME run/plugin_hbm_scratch/${target}
           COMMAND tessera run plugin_hbm_scratch --plugin $<TARGET_FILE:tessera-test-plugin-hbm-scratch>
                   --target ${target} --json)
  set_tests_properties(run/plugin_hbm_scratch/${target} PROPERTIES LABELS e2e)
  # Tiles broadcast on chip with broadcast_to (tests/plugins/tile_broadcast.cpp): the same agreement.
  add_test(NAME run/plugin_tile_broadcast/${target}
           COMMAND tessera run plugin_tile_broadcast --plugin $<TARGET_FILE:tessera-test-plugin-tile-broadcast>
                   --target ${target} --json)
  set_tests_properties(run/plugin_tile_broadcast/${target} PROPERTIES LABELS e2e)
  # int8, int16 and uint16 tensors (tests/plugins/int_dtypes.cpp): the integer outputs compared exactly.
  add_test(NAME run/plugin_int_dtypes/${target}
           COMMAND tessera run plugin_int_dtypes --plugin $<TARGET_FILE:tessera-test-plugin-int-dtypes>
                   --target ${target} --json)
  set_tests_properties(run/plugin_int_dtypes/${target} PROPERTIES LABELS e2e)
endforeach()
# A broadcast across partitions and reversed quadrants with nc_stream_shuffle (tests/plugins/stream_shuffle.cpp),
# on every NeuronCore: exit 0, the outputs match the reference.
foreach(target trn1 trn2 trn3)
  add_test(NAME run/plugin_stream_shuffle/${target}
           COMMAND tessera run plugin_stream_shuffle --plugin $<TARGET_FILE:tessera-test-plugin-stream-shuffle>
                   --target ${target} --json)
  set_tests_properties(run/plugin_stream_shuffle/${target} PROPERTIES LABELS e2e)
endforeach()
# Copies, reductions, elementwise ops and tsr::isa calls through access patterns (tests/plugins/access_pattern.cpp),
# on every NeuronCore, and those written with tsr:: language ops on a TPU (a relayout of each row there): exit 0,
# the outputs match the golden model and the reference.
foreach(target trn1 trn2 trn3 tpu-v5e)
  foreach(kernel plugin_access_pattern plugin_access_pattern_isa plugin_access_pattern_elementwise
                 plugin_access_pattern_columns plugin_access_pattern_mxu plugin_access_pattern_grid)
    if(target MATCHES "^tpu" AND kernel STREQUAL "plugin_access_pattern_isa")
      continue()
    endif()
    add_test(NAME run/${kernel}/${target}
             COMMAND tessera run ${kernel} --plugin $<TARGET_FILE:tessera-test-plugin-access-pattern>
                     --target ${target} --json)
    set_tests_properties(run/${kernel}/${target} PROPERTIES LABELS e2e)
  endforeach()
endforeach()
# An int8 matmul operand on a TPU: f32 copies of it (a NeuronCore refuses it: compiler/test/Backends/int-dtypes.test).
add_test(NAME run/plugin_int_dtypes/tpu-v5e/quantized_matmul
         COMMAND tessera run plugin_int_dtypes --plugin $<TARGET_FILE:tessera-test-plugin-int-dtypes> --target tpu-v5e
                 --param quantized_matmul=1 --json)
set_tests_properties(run/plugin_int_dtypes/tpu-v5e/quantized_matmul PROPERTIES LABELS e2e)
# N-D HBM tensors (tests/plugins/batched.cpp): [B, S, D] and [B, H, S, D], loop-indexed leading dimensions; exit 0, the outputs match the
# golden model and the reference.
foreach(target trn1 trn2 tpu-v5e)
  add_test(NAME run/plugin_batched/${target}
           COMMAND tessera run plugin_batched --plugin $<TARGET_FILE:tessera-test-plugin-batched> --target ${target}
                   --json)
  set_tests_properties(run/plugin_batched/${target} PROPERTIES LABELS e2e)
  add_test(NAME run/plugin_batched_heads/${target}
           COMMAND tessera run plugin_batched_heads --plugin $<TARGET_FILE:tessera-test-plugin-batched>
                   --target ${target} --json)
  set_tests_properties(run/plugin_batched_heads/${target} PROPERTIES LABELS e2e)
endforeach()
# HBM windows moved transposed (tests/plugins/transposed_window.cpp): load_transpose2d and a transposed store, f32
# (element-strided DMAs; a TPU transposes on chip) and bf16 (trn2's dma_transpose for the load); exit 0, the outputs
# match the golden model and the reference.
foreach(target trn1 trn2 tpu-v5e)
  foreach(dtype 1 2)
    add_test(NAME run/plugin_transposed_window/${target}/dtype=${dtype}
             COMMAND tessera run plugin_transposed_window
                     --plugin $<TARGET_FILE:tessera-test-plugin-transposed-window> --target ${target}
                     --param dtype=${dtype} --json)
    set_tests_properties(run/plugin_transposed_window/${target}/dtype=${dtype} PROPERTIES LABELS e2e)
  endforeach()
  # Windows of one row ([D, 1] tiles) and tensors of one column.
  foreach(variant "--param;rows=1" "--shape;D=1")
    string(REPLACE ";" "" name "${variant}")
    add_test(NAME run/plugin_transposed_window/${target}/${name}
             COMMAND tessera run plugin_transposed_window
                     --plugin $<TARGET_FILE:tessera-test-plugin-transposed-window> --target ${target} ${variant} --json)
    set_tests_properties(run/plugin_transposed_window/${target}/${name} PROPERTIES LABELS e2e)
  endforeach()
endforeach()
# A DMA transpose of 512 source rows (trn2, bf16).
add_test(NAME run/plugin_transposed_window/trn2/rows=512
         COMMAND tessera run plugin_transposed_window --plugin $<TARGET_FILE:tessera-test-plugin-transposed-window>
                 --target trn2 --param dtype=2,rows=512 --shape S=512 --json)
set_tests_properties(run/plugin_transposed_window/trn2/rows=512 PROPERTIES LABELS e2e)

# tessera run --report: the file is written; an unwritable path exits 2 naming it, and leaves nothing behind.
add_test(NAME report/written COMMAND sh -c "rm -f \"$1\" && $0 run add --shape M=128,N=128 --report \"$1\" >/dev/null && grep -q '<section id=timeline>' \"$1\" && [ ! -e \"$1.tmp\" ]"
         $<TARGET_FILE:tessera> ${CMAKE_CURRENT_BINARY_DIR}/report-add.html)
add_test(NAME report/unwritable COMMAND sh -c "out=$($0 run add --report \"$1\" 2>&1); status=$?; echo \"$out\"; [ $status -eq 2 ] && echo \"$out\" | grep -qF \"$1\" && [ ! -e \"$1\" ] && [ ! -e \"$1.tmp\" ]"
         $<TARGET_FILE:tessera> ${CMAKE_CURRENT_BINARY_DIR}/no-such-folder/report.html)
set_tests_properties(report/written report/unwritable PROPERTIES LABELS e2e)
# --trace through a symbolic link to a device writes through it and leaves the link (it once replaced /dev/stdout
# with a regular file); --json with an argument that is not UTF-8 prints its error as JSON and exits 2 (it aborted).
add_test(NAME run/trace-through-a-link COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && ln -s /dev/null \"$1/t.json\" && $0 run add --shape M=128,N=128 --trace \"$1/t.json\" >/dev/null && [ -L \"$1/t.json\" ] && [ -c /dev/null ] && [ -z \"$(ls -A \"$1\" | grep -v '^t.json$')\" ]"
         $<TARGET_FILE:tessera> ${CMAKE_CURRENT_BINARY_DIR}/trace-link)
add_test(NAME run/non-utf8-argument-json COMMAND sh -c "out=$($0 run \"$(printf '\\377')\" --json 2>/dev/null); status=$?; echo \"$out\" | $1 -c 'import json, sys; assert json.load(sys.stdin)[\"ok\"] is False' && [ $status -eq 2 ]"
         $<TARGET_FILE:tessera> ${Python3_EXECUTABLE})
set_tests_properties(run/trace-through-a-link run/non-utf8-argument-json PROPERTIES LABELS e2e)
# --output-dir is checked before the run: a folder that cannot be made is exit 2 at once (with --max-instructions 5
# the run itself would stop at the limit, exit 3, if it came first, as it once did).
add_test(NAME run/output-dir-checked-first COMMAND sh -c "touch \"$1\" && $0 run add --output-dir \"$1/out\" --max-instructions 5 2> \"$1.err\"; status=$?; cat \"$1.err\"; [ $status -eq 2 ] && grep -q 'output-dir: cannot create' \"$1.err\""
         $<TARGET_FILE:tessera> ${CMAKE_CURRENT_BINARY_DIR}/output-dir-is-a-file)
set_tests_properties(run/output-dir-checked-first PROPERTIES LABELS e2e)
# A module nested 10,000 deep ran the MLIR parser out of stack (exit 139): now an error at the first bracket too
# deep, exit 2, from `tessera sim` and from tessera-opt.
add_test(NAME sim/deep-nesting COMMAND sh -c "$1 -c \"print('module {' + '{' * 10000 + '}' * 10001)\" > \"$2\" && $0 sim \"$2\" 2> \"$2.err\"; status=$?; cat \"$2.err\"; [ $status -eq 2 ] && grep -q 'deep.mlir:1: error: brackets nest more than 500 levels deep' \"$2.err\""
         $<TARGET_FILE:tessera> ${Python3_EXECUTABLE} ${CMAKE_CURRENT_BINARY_DIR}/deep.mlir)
add_test(NAME opt/deep-nesting COMMAND sh -c "$1 -c \"print('module {' + '{' * 10000 + '}' * 10001)\" > \"$2\" && $0 \"$2\" 2> \"$2.err\"; status=$?; cat \"$2.err\"; [ $status -eq 2 ] && grep -q 'error: brackets nest more than 500 levels deep' \"$2.err\""
         $<TARGET_FILE:tessera-opt> ${Python3_EXECUTABLE} ${CMAKE_CURRENT_BINARY_DIR}/deep-opt.mlir)
set_tests_properties(sim/deep-nesting opt/deep-nesting PROPERTIES LABELS e2e)

# The deliberately broken examples (kernels/examples/bug_*.cpp): `tessera run` stops each with its kernel-bug
# report and exits 1 (a check failed), not 0 or 2; with --json the report is the error object's "bug".
foreach(kernel bug_uninit bug_race bug_deadlock bug_oob bug_psum_accumulate)
  add_test(NAME "run/${kernel}/exits-1" COMMAND sh -c "$0 run $1 >/dev/null 2>&1; [ $? -eq 1 ]" $<TARGET_FILE:tessera> ${kernel})
  set_tests_properties("run/${kernel}/exits-1" PROPERTIES LABELS e2e)
endforeach()

# Differential testing (tests/differential/): random valid kernels run on the simulator and on the golden model.
# compiler-tests runs a fixed batch of seeds (tests/unit/e2e/DifferentialTest.cpp; TESSERA_DIFF_SEEDS=A..B runs
# others); tessera-difftest --seeds A..B runs longer batches and prints each failure minimised.
add_library(TesseraDifftest STATIC ${CMAKE_CURRENT_SOURCE_DIR}/differential/RandomKernel.cpp
                                   ${CMAKE_CURRENT_SOURCE_DIR}/differential/PallasBundles.cpp)
target_include_directories(TesseraDifftest PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/differential)
target_link_libraries(TesseraDifftest PUBLIC Tessera fmt::fmt)
target_link_libraries(compiler-tests PRIVATE TesseraDifftest)
add_executable(tessera-difftest ${CMAKE_CURRENT_SOURCE_DIR}/differential/main.cpp)
target_link_libraries(tessera-difftest PRIVATE TesseraDifftest)

# docs/kernels.md is exactly what scripts/kernels-table.py gives for docs/kernels-table.txt (regenerate it with
# `scripts/kernels-table.py build/tools/tessera docs/kernels-table.txt > docs/kernels.md`).
add_test(NAME docs/kernels-up-to-date
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/kernels-table.py $<TARGET_FILE:tessera>
                 ${PROJECT_SOURCE_DIR}/docs/kernels-table.txt --check ${PROJECT_SOURCE_DIR}/docs/kernels.md)
set_tests_properties(docs/kernels-up-to-date PROPERTIES LABELS e2e)

# The fidelity suite (bench/fidelity/points.toml; docs/fidelity.md): every published hardware measurement within
# the suite's tolerance of its simulated time, every published ranking of variants reproduced, every fitted
# coefficient's leave-one-out error within its goal and its target file holding its fit. Timing only, about 45 s of
# CPU time (the 8192^3 Pallas point with 128 blocks, 262 144 grid steps, is most of it).
add_test(NAME fidelity/suite COMMAND tessera fidelity --holdout --jobs 2)
set_tests_properties(fidelity/suite PROPERTIES LABELS fidelity TIMEOUT 900)

# docs/tutorial/: every `$ tessera ...` a page shows prints what the page says, and every quoted piece of kernel
# code is in its file (scripts/tutorial-check.py; `--update` rewrites the outputs).
add_test(NAME docs/tutorial-up-to-date
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/tutorial-check.py $<TARGET_FILE:tessera>
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs/tutorial-up-to-date PROPERTIES LABELS e2e)

# The checker fails a page whose output or quote is wrong (tests/docs/tutorial-check-catches.sh).
add_test(NAME docs/tutorial-check-catches
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs/tutorial-check-catches.sh ${Python3_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR}/scripts/tutorial-check.py $<TARGET_FILE:tessera>
                 ${CMAKE_CURRENT_BINARY_DIR}/tutorial-check-root)
set_tests_properties(docs/tutorial-check-catches PROPERTIES LABELS e2e)

# docs/architecture.md's spine holds (each file exists and has the symbol named, at most twelve files) and no file
# points at a document that does not exist (scripts/check-docs.py); tests/docs/check-docs-catches.sh shows it fails.
add_test(NAME docs/claims COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check-docs.py
                                  --root ${PROJECT_SOURCE_DIR})
add_test(NAME docs/claims-check-catches
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs/check-docs-catches.sh ${Python3_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR}/scripts/check-docs.py ${CMAKE_CURRENT_BINARY_DIR}/check-docs-root)
set_tests_properties(docs/claims docs/claims-check-catches PROPERTIES LABELS e2e)

# docs/dsl.md documents every public name of the DSL's headers and names nothing they do not declare, in its text
# and its cpp examples (scripts/check-dsl-docs.py); tests/docs/dsl-api-check-catches.sh shows it fails.
add_test(NAME docs/dsl-api COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check-dsl-docs.py
                                   --root ${PROJECT_SOURCE_DIR})
add_test(NAME docs/dsl-api-check-catches
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/docs/dsl-api-check-catches.sh ${Python3_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR}/scripts/check-dsl-docs.py ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/dsl-api-check-root)
set_tests_properties(docs/dsl-api docs/dsl-api-check-catches PROPERTIES LABELS e2e)

# tessera isa: the reference in docs/isa/README.md is exactly what the definitions print (regenerate it with
# `build/tools/tessera isa --markdown > docs/isa/README.md`); every target lists; an unknown instruction is bad input.
add_test(NAME isa/docs-up-to-date COMMAND sh -c "$0 isa --markdown | diff -u \"$1\" - && echo up to date"
         $<TARGET_FILE:tessera> ${PROJECT_SOURCE_DIR}/docs/isa/README.md)
add_test(NAME isa/json COMMAND sh -c "$0 isa --target trn1 --json | grep -q '\"nki\": \"nki.isa.nc_matmul\"'"
         $<TARGET_FILE:tessera>)
add_test(NAME isa/unknown COMMAND sh -c "$0 isa no_such_op 2>&1; [ $? -eq 2 ]" $<TARGET_FILE:tessera>)
# Without --target both families list, grouped; a target lists its family's instructions (and print) only, and
# asking it for another family's instruction is bad input.
add_test(NAME isa/families COMMAND sh -c "out=$($0 isa) && for group in NeuronCore TPU 'Both families'; do \
  echo \"$out\" | grep -q \"^== $group ==\" || exit 1; done" $<TARGET_FILE:tessera>)
add_test(NAME isa/target-family COMMAND sh -c "out=$($0 isa --target trn2) && echo \"$out\" | grep -q '^matmul ' && \
  echo \"$out\" | grep -q '^print ' && ! echo \"$out\" | grep -q '^mxu_matmul '" $<TARGET_FILE:tessera>)
add_test(NAME isa/tpu-target-family COMMAND sh -c "out=$($0 isa --target tpu-v5e) && \
  echo \"$out\" | grep -q '^mxu_matmul ' && echo \"$out\" | grep -q '^print ' && \
  echo \"$out\" | grep -q '^  grid_step_cycles ' && ! echo \"$out\" | grep -q '^matmul '" $<TARGET_FILE:tessera>)
add_test(NAME isa/other-family COMMAND sh -c "$0 isa mxu_matmul --target trn2 2>&1 | grep -q 'tpu family'; \
  [ $? -eq 0 ] && { $0 isa mxu_matmul --target trn2 >/dev/null 2>&1; [ $? -eq 2 ]; }" $<TARGET_FILE:tessera>)
set_tests_properties(isa/docs-up-to-date isa/json isa/unknown isa/families isa/target-family
                     isa/tpu-target-family isa/other-family
                     PROPERTIES LABELS e2e)

# The hardware backends' emitted NKI and Pallas modules (tests/backends.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/backends.cmake)
# The NKI tutorial ports' runs and backend checks (tests/nki-tutorials.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/nki-tutorials.cmake)

# tessera sweep on 2 and 4 MPI ranks against one process (tests/mpi.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/mpi.cmake)
# Tessera installed into a prefix and examples/out-of-tree built against it (tests/out-of-tree.cmake).
include(${CMAKE_CURRENT_SOURCE_DIR}/out-of-tree.cmake)
