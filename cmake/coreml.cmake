# The CoreML export's protobuf types (src/export/coreml/proto/*.proto, cppnn's own subset of
# Apple's CoreML and MIL messages): C++ generated at build time with Debian's protoc into
# <build>/generated/coreml, compiled into the object library cppnn_coreml_proto (never
# committed). Gives CPPNN_COREML_PROTO_DIR (the generated headers' folder).
find_program(CPPNN_PROTOC NAMES protoc REQUIRED)
set(CPPNN_COREML_PROTO_SRC ${PROJECT_SOURCE_DIR}/src/export/coreml/proto)
set(CPPNN_COREML_PROTO_DIR ${CMAKE_BINARY_DIR}/generated/coreml)
set(_coreml_protos mil model)
set(_coreml_generated)
foreach(name IN LISTS _coreml_protos)
  list(APPEND _coreml_generated ${CPPNN_COREML_PROTO_DIR}/${name}.pb.cc
    ${CPPNN_COREML_PROTO_DIR}/${name}.pb.h)
endforeach()
add_custom_command(OUTPUT ${_coreml_generated}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CPPNN_COREML_PROTO_DIR}
  COMMAND ${CPPNN_PROTOC} --cpp_out=${CPPNN_COREML_PROTO_DIR} -I ${CPPNN_COREML_PROTO_SRC}
    ${CPPNN_COREML_PROTO_SRC}/mil.proto ${CPPNN_COREML_PROTO_SRC}/model.proto
  DEPENDS ${CPPNN_COREML_PROTO_SRC}/mil.proto ${CPPNN_COREML_PROTO_SRC}/model.proto
  COMMENT "Generating the CoreML protobuf types"
  VERBATIM)
add_library(cppnn_coreml_proto OBJECT ${CPPNN_COREML_PROTO_DIR}/mil.pb.cc
  ${CPPNN_COREML_PROTO_DIR}/model.pb.cc)
target_include_directories(cppnn_coreml_proto PUBLIC ${CPPNN_COREML_PROTO_DIR})
target_link_libraries(cppnn_coreml_proto PUBLIC protobuf::libprotobuf)
set_target_properties(cppnn_coreml_proto PROPERTIES POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden)
