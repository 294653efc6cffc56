# The Unicode tables of the tokenizer (src/llm/unicode_tables.h): general categories, White_Space,
# Alphabetic, canonical combining classes, decompositions and compositions, generated at build
# time from Debian's `unicode-data` package (scripts/install-deps.sh) by
# tools/unicode_tables/gen_unicode_tables.cpp into <build>/generated/unicode_tables.cpp, which is
# added to CPPNN_SOURCES (the library; the fuzz build lists CPPNN_UNICODE_TABLES_SOURCE itself).
# The generated file is never committed.

set(CPPNN_UNICODE_DATA_DIR "/usr/share/unicode" CACHE PATH
  "Folder of the Unicode Character Database files (Debian package unicode-data)")
set(CPPNN_UNICODE_DATA_FILES UnicodeData.txt PropList.txt DerivedCoreProperties.txt
  DerivedNormalizationProps.txt ReadMe.txt)
set(CPPNN_UNICODE_DATA_PATHS)
foreach(file IN LISTS CPPNN_UNICODE_DATA_FILES)
  if(NOT EXISTS "${CPPNN_UNICODE_DATA_DIR}/${file}")
    message(FATAL_ERROR "The tokenizer's Unicode tables need ${CPPNN_UNICODE_DATA_DIR}/${file}: "
      "install Debian's unicode-data package (scripts/install-deps.sh installs it), or set "
      "CPPNN_UNICODE_DATA_DIR to a folder holding the Unicode Character Database files.")
  endif()
  list(APPEND CPPNN_UNICODE_DATA_PATHS "${CPPNN_UNICODE_DATA_DIR}/${file}")
endforeach()

add_executable(cppnn_gen_unicode_tables
  ${PROJECT_SOURCE_DIR}/tools/unicode_tables/gen_unicode_tables.cpp)
target_link_libraries(cppnn_gen_unicode_tables PRIVATE cppnn_warnings)

set(CPPNN_UNICODE_TABLES_SOURCE ${CMAKE_BINARY_DIR}/generated/unicode_tables.cpp)
add_custom_command(OUTPUT ${CPPNN_UNICODE_TABLES_SOURCE}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND cppnn_gen_unicode_tables ${CPPNN_UNICODE_DATA_DIR} ${CPPNN_UNICODE_TABLES_SOURCE}
  DEPENDS cppnn_gen_unicode_tables ${CPPNN_UNICODE_DATA_PATHS}
  COMMENT "Generating the Unicode tables from ${CPPNN_UNICODE_DATA_DIR}"
  VERBATIM)
list(APPEND CPPNN_SOURCES ${CPPNN_UNICODE_TABLES_SOURCE})
