// Test-only extension: on startup it loads the bundled integration suites named in runner-config.json
// (written by scripts/test-integration.mjs next to this file) and runs them with mocha inside this real
// extension host, writing the results to the configured file. Never shipped.
const fs = require('fs');
const path = require('path');

/** Language-model tools contributed in package.json: third-party tools Headroom may offer (and defer). */
function registerTestTools(vscode, context) {
  const tools = require('./package.json').contributes.languageModelTools;
  for (const t of tools) {
    context.subscriptions.push(
      vscode.lm.registerTool(t.name, {
        invoke: (options) =>
          new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(`${t.name}: 3 records match "${options.input.query}".`)]),
      }),
    );
  }
}

async function activate(context) {
  const vscode = require('vscode');
  if (vscode.lm && typeof vscode.lm.registerTool === 'function') registerTestTools(vscode, context);
  const configFile = path.join(__dirname, 'runner-config.json');
  if (!fs.existsSync(configFile)) return;
  const config = JSON.parse(fs.readFileSync(configFile, 'utf8'));
  if (fs.existsSync(config.resultsFile)) return; // ran already in this launch (a second window)
  const { run } = require(config.testsBundle);
  let results;
  try {
    results = await run({ mochaPath: config.mochaPath, grep: config.grep, reportOnly: true });
  } catch (err) {
    results = { passed: 0, failed: 1, tests: [{ title: 'runner', state: 'failed', error: String((err && err.stack) || err) }] };
  }
  fs.writeFileSync(config.resultsFile + '.tmp', JSON.stringify(results, null, 2));
  fs.renameSync(config.resultsFile + '.tmp', config.resultsFile);
}

module.exports = { activate, deactivate() {} };
