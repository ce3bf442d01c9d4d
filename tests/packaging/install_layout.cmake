# ctest: `cmake --install` into a fresh folder lays out what a desktop needs, and the installed
# programs run from there. Run as: cmake -DBUILD=<build dir> -DDEST=<folder> -P install_layout.cmake
file(REMOVE_RECURSE ${DEST})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${DEST}/usr
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
set(app_id org.stepformer.Stepformer)
set(expected
  usr/bin/stepformer
  usr/bin/stepformer-cli
  usr/share/applications/${app_id}.desktop
  usr/share/metainfo/${app_id}.metainfo.xml
  usr/share/mime/packages/${app_id}.xml
  usr/share/icons/hicolor/scalable/apps/${app_id}.svg
  usr/share/icons/hicolor/48x48/apps/${app_id}.png
  usr/share/icons/hicolor/256x256/apps/${app_id}.png
  usr/share/man/man1/stepformer.1
  usr/share/man/man1/stepformer-cli.1
  usr/share/doc/stepformer/copyright
  usr/share/doc/stepformer/LICENSE)
foreach(f IN LISTS expected)
  if(NOT EXISTS ${DEST}/${f})
    message(FATAL_ERROR "cmake --install did not lay out ${f}")
  endif()
endforeach()
# The installed programs run on their own (the app's resources are compiled in).
execute_process(COMMAND ${DEST}/usr/bin/stepformer-cli --version RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^stepformer-cli [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "installed stepformer-cli --version: exit ${rc}, printed '${out}'")
endif()
execute_process(COMMAND ${DEST}/usr/bin/stepformer-cli translate --src "ich mochte ein bier P"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "installed stepformer-cli translate failed (${rc}): ${err}")
endif()
file(READ ${DEST}/usr/share/metainfo/${app_id}.metainfo.xml meta)
if(meta MATCHES "@PROJECT_VERSION@")
  message(FATAL_ERROR "the installed metainfo still holds @PROJECT_VERSION@")
endif()
list(LENGTH expected n)
message(STATUS "installed ${n} expected files under ${DEST}")
