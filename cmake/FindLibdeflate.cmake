# Finds libdeflate (whole-buffer DEFLATE/gzip; the loaders decompress .gz with
# it) and defines the imported target Libdeflate::Libdeflate. libdeflate 1.14
# (Debian 12) ships no CMake package, and its pkg-config file names /usr/lib
# rather than the multiarch directory, so the header and library are searched
# for directly. Used by graphkit's build and by its installed package config.
find_path(LIBDEFLATE_INCLUDE_DIR libdeflate.h)
# The static archive first: the binaries then run on a GPU host that has no
# libdeflate installed (the device machines here have none).
find_library(LIBDEFLATE_LIBRARY NAMES libdeflate.a deflate libdeflate)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libdeflate
  REQUIRED_VARS LIBDEFLATE_LIBRARY LIBDEFLATE_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "graphkit reads .gz files with libdeflate: install Debian's libdeflate-dev (scripts/setup does), or set LIBDEFLATE_INCLUDE_DIR and LIBDEFLATE_LIBRARY")
mark_as_advanced(LIBDEFLATE_INCLUDE_DIR LIBDEFLATE_LIBRARY)

if(Libdeflate_FOUND AND NOT TARGET Libdeflate::Libdeflate)
  add_library(Libdeflate::Libdeflate UNKNOWN IMPORTED)
  set_target_properties(Libdeflate::Libdeflate PROPERTIES
    IMPORTED_LOCATION "${LIBDEFLATE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBDEFLATE_INCLUDE_DIR}")
endif()
