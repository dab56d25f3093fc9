# Install rules (PLANETGEN_INSTALL): the libraries as planetgen:: targets with their headers
# under include/planetgen/<module>/, the planetgen executable, the web viewer under
# share/planetgen/viewer (found from bin/ by `planetgen view`), and a CMake package:
#   find_package(planetgen 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE planetgen::planetgen)   # #include "planet/planetgen.h"
include(CMakePackageConfigHelpers)

get_property(planetgen_modules GLOBAL PROPERTY PLANETGEN_MODULES)
install(TARGETS ${planetgen_modules} EXPORT planetgenTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS planetgen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Headers: the front door (planet/planetgen.h) and the config it takes, and the public headers of
# the stages a tool author may call directly. Not installed: the modules' detail/ folders, the
# pipeline's own headers in planet/, io/ (the output folder's internals) and app/ (the command
# line). The install test checks that no installed header includes a third-party header
# beyond glm and that each compiles on its own.
foreach(module geodesy terrain hydrology weather erosion metrics export tiles)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/planetgen/${module}
    FILES_MATCHING PATTERN "*.h" PATTERN detail EXCLUDE)
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/planet/planetgen.h ${PROJECT_SOURCE_DIR}/planet/config.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/planetgen/planet)
install(FILES ${PROJECT_BINARY_DIR}/generated/planetgen_version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/planetgen)

# The viewer pages (a planet's and a tiles folder's), and three.js and the 3D Tiles renderer
# when `npm ci --prefix app/viewer` has fetched them (without them `planetgen view` says so and
# names the npm command for the installed folder).
set(viewer_dest ${CMAKE_INSTALL_DATADIR}/planetgen/viewer)
file(GLOB viewer_scripts CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/app/viewer/*.js)
install(FILES ${PROJECT_SOURCE_DIR}/app/viewer/index.html
  ${PROJECT_SOURCE_DIR}/app/viewer/tiles.html ${viewer_scripts}
  ${PROJECT_SOURCE_DIR}/app/viewer/package.json
  ${PROJECT_SOURCE_DIR}/app/viewer/package-lock.json DESTINATION ${viewer_dest})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/app/viewer/node_modules/three/build
  ${PROJECT_SOURCE_DIR}/app/viewer/node_modules/three/examples
  DESTINATION ${viewer_dest}/node_modules/three OPTIONAL
  PATTERN "*.cjs" EXCLUDE PATTERN "fonts" EXCLUDE PATTERN "models" EXCLUDE
  PATTERN "textures" EXCLUDE PATTERN "screenshots" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/app/viewer/node_modules/three/package.json
  DESTINATION ${viewer_dest}/node_modules/three OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/app/viewer/node_modules/3d-tiles-renderer/build
  DESTINATION ${viewer_dest}/node_modules/3d-tiles-renderer OPTIONAL PATTERN "*.map" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/app/viewer/node_modules/3d-tiles-renderer/package.json
  ${PROJECT_SOURCE_DIR}/app/viewer/node_modules/3d-tiles-renderer/LICENSE
  DESTINATION ${viewer_dest}/node_modules/3d-tiles-renderer OPTIONAL)

set(config_dest ${CMAKE_INSTALL_LIBDIR}/cmake/planetgen)
install(EXPORT planetgenTargets NAMESPACE planetgen:: DESTINATION ${config_dest})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/planetgenConfig.cmake.in
  ${PROJECT_BINARY_DIR}/planetgenConfig.cmake INSTALL_DESTINATION ${config_dest})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/planetgenConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/planetgenConfig.cmake
  ${PROJECT_BINARY_DIR}/planetgenConfigVersion.cmake DESTINATION ${config_dest})
