# The installed package: the cusched command and its worker in bin/, the static
# libraries in lib/, the headers in their source layout under include/cusched/ (with
# the umbrella header include/cusched/cusched.h), and the CMake package in
# lib/cmake/cusched, so that another project says
#   find_package(cusched CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE cusched::cusched)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(cusched_libraries cusched_dsl cusched_problems cusched_codegen cusched_runtime cusched_search)
if(CUSCHED_WITH_AUDIT)
  list(INSERT cusched_libraries 3 cusched_audit)
endif()

# cusched::cusched: every library, the headers' two roots (cusched/cusched.h and the
# source layout's "dsl/...", "search/..." includes) and the install prefix, from which
# cusched/cusched.h tells the runtime where the installed cusched-worker is.
add_library(cusched_library INTERFACE)
target_link_libraries(cusched_library INTERFACE cusched_search)
target_include_directories(cusched_library INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/cusched>)
target_compile_definitions(cusched_library INTERFACE $<INSTALL_INTERFACE:CUSCHED_INSTALL_PREFIX="$<INSTALL_PREFIX>">)
set_target_properties(cusched_library PROPERTIES EXPORT_NAME cusched)
add_library(cusched::cusched ALIAS cusched_library)
foreach(lib ${cusched_libraries})
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/cusched>)
endforeach()

install(TARGETS cusched cusched-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${cusched_libraries} cusched_library EXPORT cuschedTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(dir dsl problems codegen audit runtime search)
  if(dir STREQUAL "audit" AND NOT CUSCHED_WITH_AUDIT)
    continue()
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cusched
          FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/include/cusched/cusched.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cusched)

set(cusched_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cusched)
install(EXPORT cuschedTargets NAMESPACE cusched:: DESTINATION ${cusched_config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cuschedConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cuschedConfig.cmake INSTALL_DESTINATION ${cusched_config_dir})
install(FILES ${PROJECT_BINARY_DIR}/cuschedConfig.cmake DESTINATION ${cusched_config_dir})
