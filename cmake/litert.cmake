# The TFLite export's schema (src/export/tflite/schema/tflite_subset.fbs, cppnn's own subset of
# TFLite's schema) compiled by Debian's flatc into <build>/generated/tflite at build time (never
# committed), and LiteRT's runtime (libLiteRt.so from PyPI's ai-edge-litert 2.3.0, fetched by
# scripts/fetch-litert.sh into .deps/litert, or under LITERT_ROOT) imported as litert::litert.
# Gives CPPNN_TFLITE_SCHEMA_DIR and the target cppnn_tflite_schema; sets CPPNN_HAVE_LITERT (the
# litert backend is optional: without the library cppnn builds without it; the converter is
# always built).
find_program(CPPNN_FLATC flatc REQUIRED)
# The flatbuffers runtime is header-only (Debian libflatbuffers-dev, in the default include path).
find_file(CPPNN_FLATBUFFERS_HEADER flatbuffers/flatbuffers.h REQUIRED)
set(CPPNN_TFLITE_SCHEMA ${PROJECT_SOURCE_DIR}/src/export/tflite/schema/tflite_subset.fbs)
set(CPPNN_TFLITE_SCHEMA_DIR ${CMAKE_BINARY_DIR}/generated/tflite)
add_custom_command(OUTPUT ${CPPNN_TFLITE_SCHEMA_DIR}/tflite_subset_generated.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CPPNN_TFLITE_SCHEMA_DIR}
  COMMAND ${CPPNN_FLATC} --cpp --scoped-enums -o ${CPPNN_TFLITE_SCHEMA_DIR} ${CPPNN_TFLITE_SCHEMA}
  DEPENDS ${CPPNN_TFLITE_SCHEMA}
  COMMENT "flatc: TFLite schema subset"
  VERBATIM)
add_custom_target(cppnn_tflite_schema DEPENDS ${CPPNN_TFLITE_SCHEMA_DIR}/tflite_subset_generated.h)

set(LITERT_ROOT "${PROJECT_SOURCE_DIR}/.deps/litert" CACHE PATH
  "Folder holding lib/libLiteRt.so (ai-edge-litert 2.3.0)")
option(CPPNN_WITH_LITERT "Build the LiteRT backend when libLiteRt.so is found" ON)
set(CPPNN_HAVE_LITERT OFF)
if(CPPNN_WITH_LITERT)
  find_library(LITERT_LIBRARY NAMES LiteRt PATHS ${LITERT_ROOT}/lib NO_DEFAULT_PATH)
  if(LITERT_LIBRARY)
    add_library(litert::litert SHARED IMPORTED)
    set_target_properties(litert::litert PROPERTIES
      IMPORTED_LOCATION "${LITERT_LIBRARY}"
      IMPORTED_SONAME "libLiteRt.so")
    set(CPPNN_HAVE_LITERT ON)
    message(STATUS "cppnn: LiteRT backend enabled (${LITERT_LIBRARY})")
  else()
    message(STATUS "cppnn: libLiteRt.so not found under ${LITERT_ROOT}; LiteRT backend disabled")
  endif()
endif()
