# tessera_add_kernels(NAME SOURCE...): kernels written with "tessera/dsl/tsr.h", built two ways.
#   NAME          the plugin libNAME.so, which every kernel command loads: tessera run KERNEL --plugin libNAME.so
#   NAME_objects  the same kernels as an object library, for a program of your own (tests) that links them:
#                 target_link_libraries(my_tests PRIVATE NAME_objects GTest::gtest_main)
# Both link libtessera.so (Tessera::tessera), where the kernels register themselves, so the tessera that loads the
# plugin, and a test linking the objects, find them by name. docs/user-kernels.md has the whole story.
function(tessera_add_kernels name)
  set(sources ${ARGN})
  if(NOT sources)
    message(FATAL_ERROR "tessera_add_kernels(${name}): give the kernels' source files, "
                        "e.g. tessera_add_kernels(${name} my_kernel.cpp)")
  endif()
  add_library(${name}_objects OBJECT ${sources})
  target_link_libraries(${name}_objects PUBLIC Tessera::tessera)
  set_target_properties(${name}_objects PROPERTIES POSITION_INDEPENDENT_CODE ON)
  add_library(${name} MODULE $<TARGET_OBJECTS:${name}_objects>)
  target_link_libraries(${name} PRIVATE Tessera::tessera)
  # Every symbol a kernel uses must come from libtessera.so or what the plugin links: a missing one is a link
  # error here, not a failure when tessera loads the plugin.
  target_link_options(${name} PRIVATE "LINKER:-z,defs")
endfunction()
