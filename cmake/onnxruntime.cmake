# Finds ONNX Runtime's C/C++ API (fetched by scripts/fetch-ort.sh into .deps/onnxruntime, or
# under ONNXRUNTIME_ROOT) and imports it as onnxruntime::onnxruntime. Sets CPPNN_HAVE_ORT.
# The ORT backend is optional: without the library cppnn builds with the reference backend only.
set(ONNXRUNTIME_ROOT "${PROJECT_SOURCE_DIR}/.deps/onnxruntime" CACHE PATH
  "Folder holding include/onnxruntime_cxx_api.h and lib/libonnxruntime.so")
option(CPPNN_WITH_ORT "Build the ONNX Runtime backend when ONNX Runtime is found" ON)

set(CPPNN_HAVE_ORT OFF)
if(CPPNN_WITH_ORT)
  find_path(ONNXRUNTIME_INCLUDE_DIR onnxruntime_cxx_api.h
    PATHS ${ONNXRUNTIME_ROOT}/include NO_DEFAULT_PATH)
  find_library(ONNXRUNTIME_LIBRARY NAMES onnxruntime
    PATHS ${ONNXRUNTIME_ROOT}/lib NO_DEFAULT_PATH)
  if(ONNXRUNTIME_INCLUDE_DIR AND ONNXRUNTIME_LIBRARY)
    get_filename_component(_ort_real "${ONNXRUNTIME_LIBRARY}" REALPATH)
    add_library(onnxruntime::onnxruntime SHARED IMPORTED)
    set_target_properties(onnxruntime::onnxruntime PROPERTIES
      IMPORTED_LOCATION "${_ort_real}"
      IMPORTED_SONAME "libonnxruntime.so.1"
      INTERFACE_INCLUDE_DIRECTORIES "${ONNXRUNTIME_INCLUDE_DIR}")
    set(CPPNN_HAVE_ORT ON)
    message(STATUS "cppnn: ONNX Runtime backend enabled (${_ort_real})")
  else()
    message(STATUS "cppnn: ONNX Runtime not found under ${ONNXRUNTIME_ROOT}; ORT backend disabled")
  endif()
endif()
