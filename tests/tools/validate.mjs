// Runs the Khronos glTF-Validator (npm gltf-validator, pinned in package-lock.json) on one
// .glb/.gltf file and prints the report as JSON on stdout. Exit code: 0 when the report has
// no errors and no warnings, 1 when it has some, 2 on bad usage or a validator failure.
// Install first: npm ci --prefix tests/tools (the CTest fixture npm_ci_tools does this).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { validateBytes, version } from 'gltf-validator/module.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node validate.mjs FILE.glb');
  process.exit(2);
}
try {
  const bytes = await readFile(file);
  const report = await validateBytes(new Uint8Array(bytes), {
    uri: path.basename(file),
    maxIssues: 0,  // unlimited
    writeTimestamp: false,
  });
  report.validatorVersion = version();
  const clean = report.issues.numErrors === 0 && report.issues.numWarnings === 0;
  // exitCode, not exit(): exit() would cut a report longer than the pipe's buffer (64 KB).
  process.exitCode = clean ? 0 : 1;
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} catch (error) {
  console.error(`validate.mjs: ${file}: ${error}`);
  process.exit(2);
}
