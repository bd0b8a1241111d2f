# examples/out-of-tree as a user builds it: Tessera installed (cmake --install) into a fresh prefix under the build
# tree, the example configured with find_package(Tessera) from that prefix alone, built (it compiles four files and
# links libtessera.so: nothing of Tessera is rebuilt), its own tests run, and the installed tessera and tessera-opt
# checked: the target files found in the prefix, and every kernel command running the example's plugin.
set(oot ${PROJECT_BINARY_DIR}/out-of-tree)
add_test(NAME out-of-tree/install
         COMMAND sh -c "rm -rf \"$1\" && \"$0\" --install \"$2\" --prefix \"$1/prefix\" >/dev/null"
                 ${CMAKE_COMMAND} ${oot} ${PROJECT_BINARY_DIR})
set_tests_properties(out-of-tree/install PROPERTIES FIXTURES_SETUP oot_installed LABELS out-of-tree)

set(oot_configure -G Ninja -DCMAKE_PREFIX_PATH=${oot}/prefix -DCMAKE_BUILD_TYPE=Release)
if(CCACHE_PROGRAM)
  list(APPEND oot_configure -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE_PROGRAM})
endif()
if(TESSERA_SANITIZE)
  # An instrumented libtessera.so needs an instrumented program around it.
  list(JOIN TESSERA_SANITIZE_FLAGS " " sanitize)
  list(APPEND oot_configure "-DCMAKE_CXX_FLAGS=${sanitize}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize}"
       "-DCMAKE_MODULE_LINKER_FLAGS=${sanitize}")
endif()
add_test(NAME out-of-tree/build
         COMMAND sh -c "\"$0\" -S \"$1\" -B \"$2\" \"$@\" >\"$2.log\" 2>&1 && \"$0\" --build \"$2\" >>\"$2.log\" 2>&1; \
                        status=$?; [ $status -eq 0 ] || cat \"$2.log\"; exit $status"
                 ${CMAKE_COMMAND} ${PROJECT_SOURCE_DIR}/examples/out-of-tree ${oot}/build ${oot_configure})
set_tests_properties(out-of-tree/build PROPERTIES FIXTURES_REQUIRED oot_installed FIXTURES_SETUP oot_built
                     LABELS out-of-tree TIMEOUT 900)

add_test(NAME out-of-tree/tests COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${oot}/build --output-on-failure)
set_tests_properties(out-of-tree/tests PROPERTIES FIXTURES_REQUIRED "oot_installed;oot_built" LABELS out-of-tree
                     TIMEOUT 900)

add_test(NAME out-of-tree/installed-tessera
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/install/check_installed.py ${oot}/prefix
                 ${oot}/build/libmy_kernels.so ${oot}/work ${PROJECT_BINARY_DIR})
set_tests_properties(out-of-tree/installed-tessera PROPERTIES FIXTURES_REQUIRED "oot_installed;oot_built"
                     LABELS out-of-tree TIMEOUT 900)
