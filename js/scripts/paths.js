// Where the package finds what it builds on: the CMake build folder holding libcppnn.so
// (CPPNN_BUILD_DIR, default the repository's build/) and the addon it makes.
'use strict';
const path = require('node:path');

const packageDir = path.resolve(__dirname, '..');
const repoDir = path.resolve(packageDir, '..');
const buildDir = path.resolve(process.env.CPPNN_BUILD_DIR || path.join(repoDir, 'build'));
const addonDir = path.join(packageDir, 'build', 'Release');

module.exports = { packageDir, repoDir, buildDir, addonDir };
