# tessera sweep under MPI (tools/tessera/SweepRanks.h): 2 and 4 ranks on this machine must print the table, CSV and
# JSON that one process prints. Without MPI (TESSERA_MPI=OFF) the same tests report themselves skipped, and a
# tessera started by mpirun refuses to run the sweep N times over.
set(mpi_sweep matmul_blocked --target trn2 --shape M=512,N=1024,K=512 --param bm=128,384,512 --param bn=512,1024
    --jobs 1)
foreach(ranks 2 4)
  set(name mpi/sweep-${ranks}-ranks)
  if(TESSERA_MPI)
    # Open MPI: as root (CI) it needs --allow-run-as-root; more ranks than cores need --oversubscribe.
    set(launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_PREFLAGS})
    execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE mpiexec_version ERROR_QUIET)
    if(mpiexec_version MATCHES "Open MPI|OpenRTE")
      list(APPEND launcher --allow-run-as-root --oversubscribe)
    endif()
    add_test(NAME ${name}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/compare_sweeps.py $<TARGET_FILE:tessera>
                     ${PROJECT_BINARY_DIR}/mpi-sweeps/${ranks} ${ranks} -- ${launcher} ${MPIEXEC_NUMPROC_FLAG} --
                     ${mpi_sweep})
    set_tests_properties(${name} PROPERTIES LABELS "e2e;mpi" TIMEOUT 600)
    if(ranks EQUAL 2)
      add_test(NAME mpi/errors-2-ranks
               COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/errors.py $<TARGET_FILE:tessera>
                       ${PROJECT_BINARY_DIR}/mpi-errors -- ${launcher} ${MPIEXEC_NUMPROC_FLAG})
      set_tests_properties(mpi/errors-2-ranks PROPERTIES LABELS "e2e;mpi" TIMEOUT 600)
    endif()
  else()
    add_test(NAME ${name}
             COMMAND sh -c "echo 'skipped: this build has no MPI (TESSERA_MPI=OFF; install libopenmpi-dev)'; exit 77")
    set_tests_properties(${name} PROPERTIES LABELS "e2e;mpi" SKIP_RETURN_CODE 77)
  endif()
endforeach()
if(NOT TESSERA_MPI)
  add_test(NAME mpi/refused-without-mpi
           COMMAND sh -c "out=$(env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 \
                          $0 sweep add --shape M=128,256 2>&1); status=$?; echo \"$out\"; \
                          [ $status -eq 2 ] && echo \"$out\" | grep -q 'built without MPI'"
                   $<TARGET_FILE:tessera>)
  set_tests_properties(mpi/refused-without-mpi PROPERTIES LABELS "e2e;mpi")
endif()
