import assert from 'node:assert/strict';
import type { SessionService } from '../../src/app/session-service';
import type { SessionHits } from '../../src/app/workspace-search';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';

/** Every session's part of a search, in the order it came. */
async function collect(service: SessionService, query: string, signal = new AbortController().signal): Promise<SessionHits[]> {
  const parts: SessionHits[] = [];
  for await (const part of service.searchAll.search(query, signal)) parts.push(part);
  return parts;
}

/** The person's search over every session of the workspace (Search History…). */
describe('session service: Search History over every session', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  let service: SessionService;
  const ids: string[] = [];

  /** Three sessions, oldest first, each saying where the port is; the third is the current one. */
  beforeEach(async () => {
    world = await createFakeWorld({});
    ({ service } = await world.open());
    ids.length = 0;
    for (const name of ['alpha', 'beta', 'gamma']) {
      if (ids.length) await service.sessions.create();
      world.server.script.push({ text: `In ${name} the port stays at 8080.` });
      await service.turns.prompt(`Session ${name}: which port does the server use?`);
      ids.push(service.sessions.id!);
      await new Promise((r) => setTimeout(r, 5)); // distinct update times
    }
  });
  afterEach(async () => world?.close());

  it('lists the current session first, then the others newest first, each with its title and age', async () => {
    await service.sessions.open(ids[1]); // beta is current; gamma is the newest of the others
    const parts = await collect(service, 'port stays at 8080');
    assert.deepEqual(
      parts.map((p) => [p.sessionId, p.current]),
      [
        [ids[1], true],
        [ids[2], false],
        [ids[0], false],
      ],
    );
    assert.match(parts[1].title, /gamma/);
    assert.ok(parts[1].updatedAt >= parts[2].updatedAt);
    assert.match(parts[2].hits[0].excerpt, /In alpha the port stays at 8080/);
    assert.equal(parts[2].hits[0].role, 'assistant');
    // A hit of another session opens from that session, not from the current one's message of that seq.
    const text = await service.search.readResult(parts[2].hits[0].ref, ids[0]);
    assert.match(text, /In alpha the port stays at 8080/);
    assert.doesNotMatch(await service.search.readResult(parts[2].hits[0].ref), /alpha/);
  });

  it('finds what a session says after it changed, and leaves sessions without a match out', async () => {
    assert.deepEqual(await collect(service, 'zebra crossing'), []);
    await service.sessions.open(ids[0]);
    world.server.script.push({ text: 'A zebra crossing is outside.' });
    await service.turns.prompt('What is outside?');
    await service.sessions.open(ids[2]);
    const parts = await collect(service, 'zebra crossing');
    assert.deepEqual(
      parts.map((p) => p.sessionId),
      [ids[0]],
    );
    assert.equal(parts[0].current, false);
  });

  it('stops at the next session once its signal aborts, and yields to the event loop between sessions', async () => {
    await collect(service, 'port'); // the other sessions are now searched from memory: no I/O between them
    let spins = 0;
    let spinning = true;
    const spin = () => {
      spins++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const seen: number[] = [];
    const controller = new AbortController();
    try {
      for await (const part of service.searchAll.search('port stays at 8080', controller.signal)) {
        seen.push(spins);
        if (part.sessionId === ids[1]) controller.abort(); // the second of the others is never searched
      }
    } finally {
      spinning = false;
    }
    assert.equal(seen.length, 2, 'the search stopped once aborted');
    assert.ok(seen[1] > seen[0], 'the event loop ran between two sessions');
  });

  it("keeps the model's search_history on its own session", async () => {
    const { hits } = await service.search.searchHistory('port stays at 8080');
    assert.equal(hits.length, 1);
    assert.match(hits[0].excerpt, /gamma/);
  });
});
