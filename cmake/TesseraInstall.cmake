# cmake --install BUILD [--prefix DIR]: what a kernel author outside this repository needs (docs/user-kernels.md).
#   bin/                      tessera, tessera-opt
#   lib/                      libtessera.so (every layer but the compiler), libtessera-compiler.so (the compiler,
#                             MLIR inside it, hidden; libtessera.so loads it from beside itself when it compiles)
#   include/tessera/          the DSL, the C++ API (Tessera.h: Driver.h, Plugin.h, Compare.h) and KernelTest.h
#   share/tessera/targets/    the target files, which the installed tessera finds relative to itself
#   lib/cmake/Tessera/        the package: find_package(Tessera), tessera_add_kernels
include(CMakePackageConfigHelpers)

install(TARGETS Tessera EXPORT TesseraTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS TesseraCompilerLibrary LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tessera tessera-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/isa/targets/ DESTINATION ${TESSERA_INSTALL_TARGETS_DIR}
        FILES_MATCHING PATTERN "*.toml")

# Headers: the layers' public headers that include no MLIR, SystemC or other dependency, and the driver's API.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/isa/include/ ${PROJECT_SOURCE_DIR}/nki-like-dsl/include/
                  ${PROJECT_SOURCE_DIR}/sim/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/compiler/include/tessera/compiler/Compiler.h
              ${PROJECT_SOURCE_DIR}/compiler/include/tessera/compiler/Golden.h
              ${PROJECT_SOURCE_DIR}/compiler/include/tessera/compiler/Provenance.h
              ${PROJECT_SOURCE_DIR}/compiler/include/tessera/compiler/TileProgram.h
              ${PROJECT_SOURCE_DIR}/compiler/include/tessera/compiler/Launch.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera/compiler)
install(FILES ${PROJECT_SOURCE_DIR}/tools/tessera/Tessera.h ${PROJECT_SOURCE_DIR}/tools/tessera/Driver.h
              ${PROJECT_SOURCE_DIR}/tools/tessera/HostData.h ${PROJECT_SOURCE_DIR}/tools/tessera/InputDistribution.h
              ${PROJECT_SOURCE_DIR}/tools/tessera/Plugin.h ${PROJECT_SOURCE_DIR}/tools/tessera/LaunchRun.h
              ${PROJECT_SOURCE_DIR}/tools/tessera/Compare.h ${PROJECT_SOURCE_DIR}/tools/tessera/KernelTest.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera)

set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${package_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TesseraConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/TesseraConfig.cmake INSTALL_DESTINATION ${package_dir}
                              PATH_VARS CMAKE_INSTALL_BINDIR TESSERA_INSTALL_TARGETS_DIR)
# No ABI is promised between versions: a project builds against the version it asks for, exactly.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/TesseraConfig.cmake ${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/TesseraKernels.cmake
        DESTINATION ${package_dir})
