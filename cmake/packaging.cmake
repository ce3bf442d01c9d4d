# Installing and packaging: `cmake --install build` lays out the two programs, the menu entry, the
# icons, the AppStream metadata, the man pages and the licence under CMAKE_INSTALL_PREFIX;
# `cpack -G DEB` (in the build folder) makes a .deb whose Depends dpkg-shlibdeps reads off the
# binaries. A packaged build should be configured with STEPFORMER_NATIVE=OFF (the default) so the
# binary runs on every x86-64 (the hot loops choose their instruction set at run time).
include(GNUInstallDirs)

set(desktop_dir ${PROJECT_SOURCE_DIR}/resources/desktop)
set(app_id org.stepformer.Stepformer)

if(TARGET stepformer)
  install(TARGETS stepformer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS stepformer-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The version goes into the metadata and the man pages from project().
set(packaging_out ${PROJECT_BINARY_DIR}/packaging)
configure_file(${desktop_dir}/${app_id}.metainfo.xml ${packaging_out}/${app_id}.metainfo.xml @ONLY)
foreach(page stepformer.1 stepformer-cli.1)
  configure_file(${desktop_dir}/${page} ${packaging_out}/${page} @ONLY)
  install(FILES ${packaging_out}/${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()

if(TARGET stepformer)
  install(FILES ${desktop_dir}/${app_id}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${packaging_out}/${app_id}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${desktop_dir}/${app_id}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
    RENAME ${app_id}.xml)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/stepformer.svg
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps RENAME ${app_id}.svg)
  foreach(size 16 24 32 48 64 128 256 512)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/hicolor/${size}x${size}/apps/${app_id}.png
      DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
  endforeach()
endif()
# Debian's place for the licence: /usr/share/doc/<package>/copyright (the package is "stepformer").
set(doc_dir ${CMAKE_INSTALL_DATADIR}/doc/stepformer)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${doc_dir})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${doc_dir} RENAME copyright)

set(CPACK_PACKAGE_NAME stepformer)
set(CPACK_PACKAGE_VENDOR "The Stepformer developers")
set(CPACK_PACKAGE_CONTACT "The Stepformer developers <stepformer@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Step through a Transformer and see every intermediate tensor")
set(CPACK_PACKAGE_DESCRIPTION "A desktop app for learning how a Transformer computes: every intermediate
tensor as a heatmap with tokens on its axes, attention maps per head, masks, positional
encoding, gradients and training with live loss plots, on the CPU or a Vulkan GPU.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_INSTALL_DIRECTORY stepformer)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Run-time pieces the binaries load but do not link: Qt's platform plugins (xcb, wayland) and
# SVG icon loader, and the fonts the Chinese interface needs.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6, fonts-noto-cjk | fonts-wqy-microhei")
# libopenblas0-openmp: opened at run time for the large products where it is faster (docs/cpu_blas.md)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers, qt6-translations-l10n, libopenblas0-openmp")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/stepformer/stepformer")
include(CPack)
