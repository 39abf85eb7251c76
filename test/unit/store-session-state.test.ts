import { strict as assert } from 'node:assert';
import { LedgerRecorder, parseLedgerState, WorkLedger } from '../../src/agent/ledger';
import { cleanup, open, tempRoot } from '../fixtures/store/helpers';

describe('store: the work ledger and the summary counter are kept with the session', () => {
  let root: string;
  beforeEach(() => (root = tempRoot()));
  afterEach(() => cleanup(root));

  it('survives close and reopen (journal replay and export), the latest value per key winning', async () => {
    const store = await open(root);
    const s = await store.sessions.create('ledger');
    const other = await store.sessions.create('other');
    const ledger = new WorkLedger();
    const recorder = new LedgerRecorder(ledger, { save: (state) => store.sessions.setState(s.id, 'ledger', JSON.stringify(state)) });
    ledger.startTurn();
    ledger.recordFile('src/app.ts', 'created');
    await recorder.save();
    ledger.recordCommand('npm test', 1, '.');
    await recorder.save();
    await store.sessions.setState(s.id, 'summary_count', '9');
    await store.close();

    const again = await open(root);
    try {
      const back = parseLedgerState(await again.sessions.getState(s.id, 'ledger'));
      assert.deepEqual(back, ledger.toJSON());
      assert.equal(await again.sessions.getState(s.id, 'summary_count'), '9');
      assert.equal(await again.sessions.getState(other.id, 'ledger'), undefined, 'per session');
    } finally {
      await again.close();
    }
  });

  it('refuses bad keys and unknown sessions before writing anything', async () => {
    const store = await open(root);
    try {
      const s = await store.sessions.create();
      await assert.rejects(store.sessions.setState(s.id, 'Bad Key!', 'x'), /not a session state key/);
      await assert.rejects(store.sessions.setState('ses_0000000000000000', 'ledger', 'x'), /Unknown session/);
      assert.equal(await store.sessions.getState(s.id, 'ledger'), undefined);
    } finally {
      await store.close();
    }
  });
});
