# The cppnn addon (src/), linked to libcppnn.so of the CMake build (CPPNN_BUILD_DIR, default
# ../build), which scripts/build.js builds first and copies beside the addon ($ORIGIN).
{
  "targets": [{
    "target_name": "cppnn",
    "sources": [
      "src/addon.cc", "src/builder.cc", "src/context.cc", "src/errors.cc", "src/objects.cc",
      "src/timeline.cc", "src/values.cc", "../bindings/op_signatures.cpp",
      "src/llm.cc", "src/llm_generator.cc", "src/llm_stream.cc", "src/llm_values.cc"
    ],
    "include_dirs": [
      "<!(node -p \"require('node-addon-api').include_dir\")",
      "../include", "../bindings"
    ],
    "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_CPP_EXCEPTIONS",
                "NODE_ADDON_API_DISABLE_DEPRECATED"],
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-fno-rtti"],
    "cflags_cc": ["-std=c++20", "-fexceptions", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                  "-fvisibility=hidden"],
    "libraries": [
      "-L<!(node -p \"require('./scripts/paths').buildDir\")", "-lcppnn",
      "-Wl,-rpath,'$$ORIGIN'"
    ]
  }]
}
