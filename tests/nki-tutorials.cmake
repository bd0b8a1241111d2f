# The NKI tutorial ports (kernels/nki-tutorials/, README.md there): the tests the library kernels get, by name.
# Included from compiler.cmake after backends.cmake (its fixture, venv and check_kernel.sh).
#
# Every tutorial kernel, by its registered name, and those written with tsr::isa calls as their tutorials use
# nki.isa (NeuronCore instructions: a TPU target refuses them at the first such call).
set(nki_tutorial_kernels tut_tensor_add tut_transpose2d tut_avgpool2d tut_rmsnorm tut_layernorm_v1 tut_layernorm_v2
    tut_softmax tut_matmul_v1 tut_matmul_v2 tut_matmul_v3 tut_matmul_v4 tut_matmul_v5 tut_mamba_v1 tut_mamba_v2
    tut_mamba_v3 tut_sd_attention tut_attention_v1 tut_attention_v2 tut_attention_v3 tut_attention_v4
    tut_attention_v5 tut_attention_v6)
set(nki_tutorial_neuroncore_only tut_avgpool2d tut_layernorm_v2 tut_mamba_v1 tut_mamba_v2 tut_mamba_v3
    tut_sd_attention tut_attention_v1 tut_attention_v2 tut_attention_v3 tut_attention_v4 tut_attention_v5
    tut_attention_v6)
# The attention forward ports run on their tutorial page's inputs, np.random.rand's uniform [0, 1). On the default
# uniform [-1, 1) inputs their FP32 error passes FP32's default tolerance only at some seeds; they declare their own
# (referenceTolerance, kernels/nki-tutorials/attention_fwd.cpp), which ReferenceToleranceTest checks at 12 seeds.
foreach(kernel tut_attention_v1 tut_attention_v2 tut_attention_v3 tut_attention_v4 tut_attention_v5 tut_attention_v6)
  set(nki_tutorial_args_${kernel} --input-dist range:0,1)
endforeach()

# The lists above are the registry's tut_* kernels, no more and no fewer.
string(REPLACE ";" " " nki_tutorials_expected "${nki_tutorial_kernels}")
add_test(NAME run/nki-tutorials-listed
         COMMAND sh -c "listed=$($0 list --json | $1 -c 'import json, sys; print(\" \".join(sorted(k[\"name\"] for k in json.load(sys.stdin) if k[\"name\"].startswith(\"tut_\"))))'); expected=$(printf '%s\\n' $2 | sort | tr '\\n' ' ' | sed 's/ $//'); echo \"registered: $listed\"; echo \"tested:     $expected\"; [ \"$listed\" = \"$expected\" ]"
                 $<TARGET_FILE:tessera> ${Python3_EXECUTABLE} "${nki_tutorials_expected}")
set_tests_properties(run/nki-tutorials-listed PROPERTIES LABELS e2e)

# `tessera run` at the default shape on trn1, trn2 and tpu-v5e: exit 0, the outputs match the reference (and the
# golden model where it has the kernel's ops). On tpu-v5e a NeuronCore-only kernel must be refused with exit 2 and
# the DSL's message naming the instruction.
foreach(kernel ${nki_tutorial_kernels})
  foreach(target trn1 trn2 tpu-v5e)
    set(name run/${kernel}/${target})
    if(target MATCHES "^tpu" AND kernel IN_LIST nki_tutorial_neuroncore_only)
      add_test(NAME ${name}
               COMMAND sh -c "out=$($0 run $1 --target $2 2>&1); status=$?; echo \"$out\"; [ $status -eq 2 ] && echo \"$out\" | grep -q 'tsr::isa::[a-z_]* is a NeuronCore instruction; target tpu-v5e is a TPU'"
                       $<TARGET_FILE:tessera> ${kernel} ${target})
    else()
      add_test(NAME ${name} COMMAND tessera run ${kernel} --target ${target} --json ${nki_tutorial_args_${kernel}})
    endif()
    set_tests_properties(${name} PROPERTIES LABELS e2e)
  endforeach()
endforeach()
# Beyond the defaults where a tutorial's structure needs it: mamba v3 carries each state across two 512-long
# sequence chunks; the matmuls at more than one block in every dimension; layernorm v2 with two bn_stats chunks.
add_e2e_runs("tut_mamba_v3 trn2 seq_len=1024" "tut_mamba_v1 trn1 batch=2,channels=384"
             "tut_matmul_v4 trn2 M=512,N=2048,K=384" "tut_matmul_v5 tpu-v5e M=1024,N=2048,K=512"
             "tut_layernorm_v2 trn1 R=384,C=1024")
# The ragged last block of rows, where the tutorials mask (R = 300: two tiles of 128 and one of 44): the same body
# on a smaller tile after the loop, multiplying by the first partitions of the broadcast tiles. Run on every family,
# rmsnorm's also checked through the NKI model, Pallas interpret mode and the real TPU compiler.
add_e2e_runs("tut_rmsnorm trn1 R=300" "tut_rmsnorm tpu-v5e R=300" "tut_softmax trn2 R=300"
             "tut_softmax tpu-v5e R=100" "tut_layernorm_v1 trn2 R=300" "tut_layernorm_v1 tpu-v5e R=300"
             "tut_layernorm_v2 trn1 R=300,C=1024")
add_test(NAME backends/nki/tut_rmsnorm-R=300/trn2
         COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki tut_rmsnorm trn2 ${BACKEND_WORK}
                 - --shape R=300)
set_tests_properties(backends/nki/tut_rmsnorm-R=300/trn2 PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
foreach(backend pallas tpu-compile)
  add_test(NAME backends/${backend}-manual/tut_rmsnorm-R=300/tpu-v5e
           COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python ${backend} tut_rmsnorm tpu-v5e
                   ${BACKEND_WORK} manual --shape R=300)
  set_tests_properties(backends/${backend}-manual/tut_rmsnorm-R=300/tpu-v5e PROPERTIES FIXTURES_REQUIRED backend_venv
                       LABELS backends)
endforeach()
set_property(TEST backends/tpu-compile-manual/tut_rmsnorm-R=300/tpu-v5e APPEND PROPERTY LABELS libtpu)
# The fused self attention's causal mask (a fill by position, nisa.affine_select in the NKI module), run and
# checked through the NKI model on both NeuronCores.
foreach(target trn1 trn2)
  add_test(NAME run/tut_sd_attention/${target}/use_causal_mask=1
           COMMAND tessera run tut_sd_attention --target ${target} --param use_causal_mask=1 --json)
  set_tests_properties(run/tut_sd_attention/${target}/use_causal_mask=1 PROPERTIES LABELS e2e)
  add_test(NAME backends/nki/tut_sd_attention-use_causal_mask=1/${target}
           COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki tut_sd_attention ${target}
                   ${BACKEND_WORK} - --param use_causal_mask=1)
  set_tests_properties(backends/nki/tut_sd_attention-use_causal_mask=1/${target} PROPERTIES
                       FIXTURES_REQUIRED backend_venv LABELS backends)
endforeach()
# Attention over two 512-column kv tiles (its row maxima and sums across them), on the tutorial's inputs.
add_test(NAME run/tut_attention_v6/trn1/seqlen=1024
         COMMAND tessera run tut_attention_v6 --target trn1 --shape seqlen=1024 --json --input-dist range:0,1)
set_tests_properties(run/tut_attention_v6/trn1/seqlen=1024 PROPERTIES LABELS e2e)

# The hardware backends, as for the library kernels (backends.cmake): the NKI module on trn1 and trn2 (check_nki.py
# and the NumPy model of the NKI calls); for the kernels that run on a TPU, the Pallas module in both styles under
# interpret mode, and compiled by the real TPU compiler (libtpu), on tpu-v5e.
# transpose2d's access pattern is a relayout of each row on a TPU (a reshape and a transpose, which Mosaic compiles;
# written with column-strided HBM windows instead, as it once was, Mosaic refused it: "Stride on last dim is not 1").
foreach(kernel ${nki_tutorial_kernels})
  foreach(target trn1 trn2)
    add_test(NAME backends/nki/${kernel}/${target}
             COMMAND ${check_kernel} $<TARGET_FILE:tessera> ${BACKEND_VENV}/bin/python nki ${kernel} ${target} ${BACKEND_WORK}
                     - ${nki_tutorial_args_${kernel}})
    set_tests_properties(backends/nki/${kernel}/${target} PROPERTIES FIXTURES_REQUIRED backend_venv LABELS backends)
  endforeach()
  if(kernel IN_LIST nki_tutorial_neuroncore_only)
    continue()
  endif()
  foreach(style manual auto)
    add_pallas_check(${kernel} ${style} tpu-v5e)
    add_tpu_compile_test(${kernel} ${style} tpu-v5e)
  endforeach()
endforeach()

# Every kernel `tessera list` shows, the library's (backends.cmake) and these ports, has backend checks: here, after
# both lists are known.
add_test(NAME backends/every-kernel
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/hw-backends/check/every_kernel.py $<TARGET_FILE:tessera>
                 ${library_kernels} ${nki_tutorial_kernels})
set_tests_properties(backends/every-kernel PROPERTIES LABELS backends)
