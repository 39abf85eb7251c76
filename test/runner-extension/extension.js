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

/**
 * A chat model provider for the Language Model API suites (vendor `headroom-fake`, declared in this
 * package.json). Its behaviour lives in the test bundle (test/integration/fake-lm.ts), which installs
 * it on `globalThis.__headroomFakeLm`; until then it offers no model.
 */
function registerFakeModels(context) {
  const vscode = require('vscode');
  if (typeof vscode.lm?.registerLanguageModelChatProvider !== 'function') return;
  const changed = new vscode.EventEmitter();
  const fake = () => globalThis.__headroomFakeLm;
  globalThis.__headroomFakeLmChanged = () => changed.fire();
  context.subscriptions.push(
    changed,
    vscode.lm.registerLanguageModelChatProvider('headroom-fake', {
      onDidChangeLanguageModelChatInformation: changed.event,
      provideLanguageModelChatInformation: () => fake()?.information() ?? [],
      provideLanguageModelChatResponse: (model, messages, options, progress, token) =>
        fake().respond(model, messages, options, progress, token),
      provideTokenCount: (model, text) => fake()?.count(text) ?? 0,
    }),
  );
}

async function activate(context) {
  const vscode = require('vscode');
  if (vscode.lm && typeof vscode.lm.registerTool === 'function') registerTestTools(vscode, context);
  registerFakeModels(context);
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
