import assert from 'node:assert/strict';
import { messagesToItems } from '../../src/panel/transcript-items';
import { createFakeWorld, type FakeWorld } from '../fixtures/app/fake-environment';
import { makePng } from '../fixtures/images/make-png';

/** Images and Test connection through the session service, its store and the fake provider. */
describe('session service: images and Test connection', function () {
  this.timeout(120_000);
  let world: FakeWorld;
  beforeEach(async () => (world = await createFakeWorld({})));
  afterEach(async () => world?.close());

  it('sends a pasted image as an Anthropic image block, stores it with its size, and shows it again when the session is reopened', async () => {
    const { service } = await world.open();
    const png = makePng(600, 400);
    const data = png.toString('base64');
    await service.turns.prompt('what is this?', [{ mediaType: 'image/png', data }]);
    const rec = world.server.requests.at(-1)!;
    assert.equal(rec.status, 200);
    assert.deepEqual(rec.images, [{ mediaType: 'image/png', bytes: png.length }]);
    const sent = service.sessions.messages[0];
    assert.deepEqual(sent.content, [
      { type: 'image', mediaType: 'image/png', data, width: 600, height: 400 },
      { type: 'text', text: 'what is this?' },
    ]);
    const id = service.sessions.state().sessionId;
    await service.sessions.create();
    await service.sessions.open(id);
    assert.deepEqual(service.sessions.messages[0].content, sent.content, 'stored with the session, size included');
    const [bubble] = messagesToItems(service.sessions.messages);
    assert.deepEqual(bubble, { kind: 'user', id: 'm0', text: 'what is this?', images: [`data:image/png;base64,${data}`] });
  });

  it('refuses a fake image before anything is sent or stored', async () => {
    const { service } = await world.open();
    const fake = Buffer.from('not an image at all').toString('base64');
    await assert.rejects(service.turns.prompt('look', [{ mediaType: 'image/png', data: fake }]), /Image 1 was not sent: it is not a PNG/);
    assert.equal(world.server.requests.length, 0);
    assert.equal(service.sessions.messages.length, 0);
  });

  it('Test connection answers with the released key through the adapter a turn uses', async () => {
    const { service } = await world.open();
    const r = await service.turns.testConnection();
    assert.equal(r.ok, true, r.message);
    assert.equal(r.message, `Connected: fake-model answered at ${world.server.baseUrl}.`);
    assert.equal(world.server.requests.at(-1)!.status, 200, 'the server accepts only the key the port released');
    assert.equal(service.sessions.messages.length, 0, 'nothing enters the session');
  });
});
