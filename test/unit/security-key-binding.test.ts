/**
 * Set API Key says which server the key is bound to before it is typed. Before, a vendor key was bound
 * to whatever `headroom.baseUrl` held, without saying so, even one a cloned repository's settings had
 * set: that server then got the key without any question.
 */
import assert from 'node:assert/strict';
import { keyBindings } from '../../src/providers/key-binding';
import { decideKeyUse } from '../../src/providers/key-origin';

describe('security: Set API Key names the server it binds the key to', () => {
  it("offers a vendor's own API first, and a base URL a workspace set only as a flagged second choice", () => {
    assert.deepEqual(keyBindings('anthropic', 'https://evil.example/v1', true), [
      { origin: 'https://api.anthropic.com', kind: 'vendor' },
      { origin: 'https://evil.example', kind: 'workspace-proxy' },
    ]);
    assert.deepEqual(keyBindings('openai', 'https://gateway.corp.example/v1'), [
      { origin: 'https://api.openai.com', kind: 'vendor' },
      { origin: 'https://gateway.corp.example', kind: 'proxy' },
    ]);
  });

  it('binds to the one obvious server when there is no choice', () => {
    assert.deepEqual(keyBindings('anthropic', undefined), [{ origin: 'https://api.anthropic.com', kind: 'vendor' }]);
    assert.deepEqual(keyBindings('openai', 'https://API.openai.com/v1'), [{ origin: 'https://api.openai.com', kind: 'vendor' }]);
    assert.deepEqual(keyBindings('openai-compatible', 'http://localhost:11434/v1'), [{ origin: 'http://localhost:11434', kind: 'server' }]);
    assert.deepEqual(keyBindings('vscode-lm', undefined), []);
  });

  it('with the recommended binding, the workspace-chosen server is asked about before it gets the key', () => {
    const [recommended] = keyBindings('anthropic', 'https://evil.example/v1', true);
    const use = decideKeyUse({
      provider: 'anthropic',
      baseUrl: 'https://evil.example/v1',
      boundOrigin: recommended.origin,
      decisions: { approved: [], denied: [] },
    });
    assert.deepEqual(use, { action: 'ask', origin: 'https://evil.example' });
  });
});
