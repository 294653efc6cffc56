# Embedding a text file in a C++ source at build time.
#
# As a module (include(cmake/embed_text.cmake)): cppnn_embed_text(TARGET FILE) makes
# <binary dir>/embedded/<file name>.inc, regenerated whenever FILE changes, and puts that folder
# on TARGET's include path. The .inc holds the file's bytes as a comma-separated list of
# character literals ending in 0, to be included inside a char array initializer:
#   constexpr char kText[] = {
#   #include "page.html.inc"
#   };
# (the text is then std::string_view(kText, sizeof kText - 1)).
#
# As a script (cmake -DINPUT=... -DOUTPUT=... -P embed_text.cmake): writes OUTPUT from INPUT.

if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${INPUT}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  # 16 bytes a line.
  string(REGEX REPLACE "(('[^']*',){16})" "\\1\n" bytes "${bytes}")
  file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_text.cmake.\n${bytes}0\n")
  file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
  return()
endif()

set(CPPNN_EMBED_TEXT_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

function(cppnn_embed_text target file)
  get_filename_component(name ${file} NAME)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
  set(out ${dir}/${name}.inc)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${file} -DOUTPUT=${out} -P ${CPPNN_EMBED_TEXT_SCRIPT}
    DEPENDS ${file} ${CPPNN_EMBED_TEXT_SCRIPT}
    COMMENT "Embedding ${name}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
