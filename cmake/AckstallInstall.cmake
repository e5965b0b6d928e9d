include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(_targets GLOBAL PROPERTY ACKSTALL_INSTALL_TARGETS)
install(TARGETS ${_targets} EXPORT ackstallTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/ackstall/core include/ackstall/net
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ackstall)
install(EXPORT ackstallTargets NAMESPACE ackstall:: FILE ackstallTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ackstall)
configure_package_config_file(cmake/ackstallConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ackstallConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ackstall)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ackstallConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ackstallConfig.cmake ${PROJECT_BINARY_DIR}/ackstallConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ackstall)
