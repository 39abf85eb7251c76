import assert from 'node:assert/strict';
import { externalTool } from '../../src/tools/external-tool';
import { describeOrigin, isAllowListed, offerableOrigin, toolOrigin } from '../../src/tools/external-tools-policy';
import type { ExternalToolDefinition, ExternalToolPort } from '../../src/tools/ports';
import { ToolRegistry } from '../../src/tools/registry';
import { call, makeContext, resultText } from '../fixtures/tools/tool-context';

/**
 * `vscode.lm.tools` lists VS Code's own internal tools next to extensions' and MCP
 * servers'. Offered unfiltered, 26 of them (`run_in_terminal`, `vscode_editFile_internal`, …) ran
 * without approval and past the trust gate. Now only third-party extension and MCP tools are offered,
 * and each one asks before it runs unless the user allow-listed it.
 */

/** Shapes of `LanguageModelToolInformation.source` as VS Code builds them. */
const extensionSource = (id: string, label = id) => ({ id, label });
const mcpSource = (label: string, name = label) => ({ label, name, instructions: undefined });

const thirdParty = new Set(['ms-python.python', 'acme.db-tools']);
const options = { isBuiltinExtension: (id: string) => !thirdParty.has(id) };

describe('security: which external tools are offered to the model', () => {
  it("never offers VS Code internal tools, built-in extensions' tools or VS Code's agent tools", () => {
    const internal = [
      'run_in_terminal',
      'send_to_terminal',
      'get_terminal_output',
      'vscode_editFile_internal',
      'vscode_fetchWebPage_internal',
      'create_and_run_task',
      'run_task',
      'runSubagent',
      'runTests',
      'manage_todo_list',
      'vscode_searchExtensions_internal',
      'file_search',
      'grep_search',
      'read_file',
      'create_file',
      'apply_patch',
      'insert_edit_into_file',
      'replace_string_in_file',
      'list_dir',
      'semantic_search',
      'get_errors',
      'fetch_webpage',
      'open_simple_browser',
      'install_extension',
      'create_new_workspace',
      'think',
    ];
    assert.equal(internal.length, 26);
    for (const name of internal) assert.equal(offerableOrigin({ name, source: undefined }, options), undefined, name);
    const refused = [
      { name: 'git_commit', source: extensionSource('vscode.git', 'Git') }, // built-in extension (vscode. publisher)
      { name: 'npm_run', source: extensionSource('vscode.npm') },
      { name: 'copilot_readFile', source: extensionSource('GitHub.copilot-chat', 'GitHub Copilot Chat') },
      { name: 'searchResults', source: extensionSource('ms-vscode.builtin-thing') }, // isBuiltin in its manifest
      { name: 'run_in_terminal', source: extensionSource('acme.db-tools') }, // an internal name, whatever it claims
      { name: 'odd', source: 'not an object' },
      { name: 'odd2', source: {} },
    ];
    for (const t of refused) assert.equal(offerableOrigin(t, options), undefined, t.name);
  });

  it('offers third-party extension and MCP server tools, and names where they come from', () => {
    const py = offerableOrigin({ name: 'python_run_tests', source: extensionSource('ms-python.python', 'Python') }, options);
    assert.deepEqual(py, { kind: 'extension', id: 'ms-python.python', label: 'Python' });
    assert.equal(describeOrigin(py), 'the extension "Python" (ms-python.python)');
    const gh = offerableOrigin({ name: 'github_search_issues', source: mcpSource('GitHub', 'github-mcp') }, options);
    assert.deepEqual(gh, { kind: 'mcp', server: 'GitHub' });
    assert.equal(describeOrigin(gh), 'the MCP server "GitHub"');
    assert.deepEqual(toolOrigin(undefined), { kind: 'internal' });
  });

  it('a failing built-in check refuses the tool', () => {
    const throwing = {
      isBuiltinExtension: () => {
        throw new Error('extension host gone');
      },
    };
    assert.equal(offerableOrigin({ name: 'db_query', source: extensionSource('acme.db-tools') }, throwing), undefined);
  });

  it('allow list: exact names and globs', () => {
    assert.equal(isAllowListed('github_search_issues', ['github_search_*']), true);
    assert.equal(isAllowListed('github_create_issue', ['github_search_*']), false);
    assert.equal(isAllowListed('db_query', ['db_query']), true);
    assert.equal(isAllowListed('db_query', []), false);
    assert.equal(isAllowListed('db_query', ['', '  ']), false);
  });
});

describe('security: every external tool is treated as mutating and asks first', () => {
  const def: ExternalToolDefinition = {
    name: 'db_drop_table',
    description: 'Drops a table',
    inputSchema: { type: 'object', properties: { table: { type: 'string' } } },
    origin: 'the extension "DB Tools" (acme.db-tools)',
  };
  function port() {
    const calls: Array<{ name: string; input: Record<string, unknown> }> = [];
    const p: ExternalToolPort & { calls: typeof calls } = {
      calls,
      list: () => [def],
      invoke: (name, input) => {
        calls.push({ name, input });
        return Promise.resolve('dropped');
      },
    };
    return p;
  }

  it('declares itself mutating with approval, and shows the origin and input in the approval', async () => {
    const p = port();
    const tool = externalTool(def, p);
    assert.equal(tool.mutates, true);
    assert.equal(tool.requiresApproval, 'tool');
    assert.equal('origin' in tool.definition, false, 'the origin is for the user, not sent to the model');
    const ctx = makeContext('/nonexistent-root');
    const r = await tool.invoke(call('db_drop_table', { table: 'users' }), ctx);
    assert.equal(resultText(r), 'dropped');
    assert.equal(ctx.approve.requests.length, 1);
    const req = ctx.approve.requests[0];
    assert.equal(req.kind, 'tool');
    assert.ok(req.kind === 'tool' && req.origin === def.origin && req.input.includes('"table": "users"'));
  });

  it('a rejected call never reaches the tool, and the model is told', async () => {
    const p = port();
    const ctx = makeContext('/nonexistent-root', { decision: { approved: false, reason: 'not in prod' } });
    const r = await externalTool(def, p).invoke(call('db_drop_table', { table: 'users' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /The user rejected the call to db_drop_table; it was not run\. The user's reason: "not in prod"/);
    assert.deepEqual(p.calls, []);
  });

  it('is refused in an untrusted workspace, before anyone is asked', async () => {
    const p = port();
    const ctx = makeContext('/nonexistent-root', { trusted: false });
    const r = await externalTool(def, p).invoke(call('db_drop_table', { table: 'users' }), ctx);
    assert.equal(r.isError, true);
    assert.match(resultText(r), /not trusted/);
    assert.deepEqual(ctx.approve.requests, []);
    assert.deepEqual(p.calls, []);
  });

  it('an allow-listed tool runs without asking; the list is read at each call', async () => {
    const p = port();
    let allow: string[] = ['db_*'];
    const registry = new ToolRegistry({ builtins: [], external: p, externalAllow: () => allow });
    registry.setEffectiveWindow(100_000);
    const ctx = makeContext('/nonexistent-root');
    assert.equal(resultText(await registry.invoke(call('db_drop_table', { table: 'a' }), ctx)), 'dropped');
    assert.equal(ctx.approve.requests.length, 0);
    allow = [];
    await registry.invoke(call('db_drop_table', { table: 'b' }), ctx);
    assert.equal(ctx.approve.requests.length, 1, 'asks again once the allow list no longer names it');
    assert.equal(p.calls.length, 2);
  });
});
