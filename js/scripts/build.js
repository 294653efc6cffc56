// Builds the addon: libcppnn.so in the CMake build folder (configured Release with Ninja when
// it does not exist; `cmake --build` is a no-op when it is up to date), then the addon with
// node-gyp against Node's installed headers (npm_config_nodedir=/usr: nothing is downloaded),
// then copies libcppnn.so.N beside it. Incremental: node-gyp configures once.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { packageDir, repoDir, buildDir, addonDir } = require('./paths');

function run(cmd, args, options = {}) {
  execFileSync(cmd, args, { stdio: 'inherit', cwd: packageDir, ...options });
}

// node-gyp: the one bundled with npm (beside npm-cli.js), else one on PATH.
function nodeGyp() {
  const candidates = [];
  if (process.env.npm_execpath)
    candidates.push(path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules',
                              'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push('/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
                  '/usr/share/nodejs/node-gyp/bin/node-gyp.js');
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error('build: node-gyp not found (npm bundles it)');
  return found;
}

function buildLibrary() {
  if (!fs.existsSync(path.join(buildDir, 'build.ninja')) &&
      !fs.existsSync(path.join(buildDir, 'Makefile')))
    run('cmake', ['-S', repoDir, '-B', buildDir, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']);
  run('cmake', ['--build', buildDir, '--target', 'cppnn', 'cppnn_js_typegen']);
}

function buildAddon() {
  const env = { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir || '/usr' };
  if (!env.CXX) env.CXX = fs.existsSync('/usr/bin/ccache') ? 'ccache c++' : 'c++';
  const gyp = nodeGyp();
  const jobs = ['-j', String(Math.max(1, Math.min(2, require('node:os').availableParallelism())))];
  if (!fs.existsSync(path.join(packageDir, 'build', 'Makefile')))
    run(process.execPath, [gyp, 'configure', `--nodedir=${env.npm_config_nodedir}`], { env });
  run(process.execPath, [gyp, 'build', ...jobs], { env });
}

// libcppnn.so.N (the SONAME the addon needs) beside the addon, when it changed.
function copyLibrary() {
  const link = path.join(buildDir, 'libcppnn.so');
  const real = fs.realpathSync(link);
  const soname = fs.readdirSync(buildDir).find((f) => /^libcppnn\.so\.\d+$/.test(f));
  if (!soname) throw new Error(`build: no libcppnn.so.N in ${buildDir}`);
  const target = path.join(addonDir, soname);
  const same = fs.existsSync(target) && fs.statSync(target).mtimeMs >= fs.statSync(real).mtimeMs &&
               fs.statSync(target).size === fs.statSync(real).size;
  if (!same) {
    fs.copyFileSync(real, `${target}.tmp`);
    fs.renameSync(`${target}.tmp`, target);
  }
}

// ---- TypeScript declarations (js/typegen/): index.d.ts from its template and the op table, by
// the cppnn_js_typegen program that buildLibrary() built; it rewrites index.d.ts only when its
// content changes.
function generateTypes() {
  run(path.join(buildDir, 'bin', 'cppnn_js_typegen'),
      [path.join(packageDir, 'typegen', 'index.d.ts.in'), path.join(packageDir, 'index.d.ts')]);
}
// ----

buildLibrary();
generateTypes();
buildAddon();
copyLibrary();
